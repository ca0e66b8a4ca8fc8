import { defineConfig } from "tsup";
import { packageConfig } from "../../tsup.base.js";

// Six entries: the Node one, the zod schemas, one without Node built-ins, two that a CLI's
// start-up (`--help`, an error message) imports without the rest: the defaults, terminalSafe,
// and the line reader that @cursor-wrap/jsonrpc frames its lines with.
export default defineConfig(
  packageConfig({
    dts: {
      entry: [
        "src/index.ts",
        "src/schemas.ts",
        "src/browser.ts",
        "src/defaults.ts",
        "src/terminal-safe.ts",
        "src/line-reader.ts",
      ],
    },
  }),
);
