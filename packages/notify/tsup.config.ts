import { defineConfig } from "tsup";
import { packageConfig } from "../../tsup.base.js";

// Two entries: the notifier, and what reading its flags needs (a CLI's --help loads that alone).
export default defineConfig(packageConfig({ dts: { entry: ["src/index.ts", "src/options.ts"] } }));
