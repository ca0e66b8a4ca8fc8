import { defineConfig } from "tsup";
import { packageConfig } from "../../tsup.base.js";

// Three entries: the run; the turn input (zod and Ajv, loaded only by those who read one); an
// in-memory agent process for tests.
export default defineConfig(
  packageConfig({ dts: { entry: ["src/index.ts", "src/turn-input.ts", "src/testing.ts"] } }),
);
