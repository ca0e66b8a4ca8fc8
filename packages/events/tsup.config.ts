import { defineConfig } from "tsup";
import { packageConfig } from "../../tsup.base.js";

// Three entries: the Node one, the zod schemas, and one without Node built-ins.
export default defineConfig(
  packageConfig({ dts: { entry: ["src/index.ts", "src/schemas.ts", "src/browser.ts"] } }),
);
