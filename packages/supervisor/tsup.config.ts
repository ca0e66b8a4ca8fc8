import { defineConfig } from "tsup";
import { packageConfig } from "../../tsup.base.js";

// The pty packages are optional native modules loaded lazily at run time: never bundle them.
export default defineConfig(packageConfig({ external: ["@lydell/node-pty", "node-pty"] }));
