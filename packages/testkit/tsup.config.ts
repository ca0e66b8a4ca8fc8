import { defineConfig } from "tsup";
import { packageConfig } from "../../tsup.base.js";

// The two programs the CLI's demo imports get declarations too, so their entry points type-check.
export default defineConfig(
  packageConfig({
    dts: { entry: ["src/index.ts", "src/fake-cursor-agent.ts", "src/fake-mcp-server.ts"] },
  }),
);
