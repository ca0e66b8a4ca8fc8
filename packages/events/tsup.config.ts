import { defineConfig } from "tsup";
import { packageConfig } from "../../tsup.base.js";

// Five entries: the Node one, the zod schemas, one without Node built-ins, and two that a CLI's
// start-up (`--help`, an error message) imports without the rest: the defaults, terminalSafe.
export default defineConfig(
  packageConfig({
    dts: {
      entry: [
        "src/index.ts",
        "src/schemas.ts",
        "src/browser.ts",
        "src/defaults.ts",
        "src/terminal-safe.ts",
      ],
    },
  }),
);
