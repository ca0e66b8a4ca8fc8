import { defineConfig } from "tsup";
import { packageConfig } from "../../tsup.base.js";

// Two entries: the trace, and a local OTLP receiver for tests (./testing).
export default defineConfig(packageConfig({ dts: { entry: ["src/index.ts", "src/testing.ts"] } }));
