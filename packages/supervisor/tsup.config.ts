import { defineConfig } from "tsup";
import { packageConfig } from "../../tsup.base.js";

// The pty packages are optional native modules loaded lazily at run time: never bundle them.
// Two entries: the package, and its defaults alone (for a CLI's --help).
export default defineConfig(
  packageConfig({
    external: ["@lydell/node-pty", "node-pty"],
    dts: { entry: ["src/index.ts", "src/defaults.ts"] },
  }),
);
