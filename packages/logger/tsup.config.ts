import { defineConfig } from "tsup";
import { packageConfig } from "../../tsup.base.js";

// Two entries: the package, and its defaults alone (for a CLI's --help).
export default defineConfig(packageConfig({ dts: { entry: ["src/index.ts", "src/defaults.ts"] } }));
