import { defineConfig } from "tsup";
import { packageConfig } from "../../tsup.base.js";

// Four entries: the run; the turn input (zod and Ajv, loaded only by those who read one); an
// in-memory agent process for tests; how a run ended and its exit code (nothing else loaded, for
// a CLI's --help and --version).
export default defineConfig(
  packageConfig({
    dts: { entry: ["src/index.ts", "src/turn-input.ts", "src/testing.ts", "src/ending.ts"] },
  }),
);
