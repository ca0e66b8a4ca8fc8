import { defineConfig } from "tsup";
import { packageConfig } from "../../tsup.base.js";

// Two entries: everything, and the proxy alone (`@cursor-wrap/mcp/proxy`: a proxy process loads
// none of the config rewriting, jsonc-parser or sessions).
export default defineConfig(packageConfig({ dts: { entry: ["src/index.ts", "src/proxy.ts"] } }));
