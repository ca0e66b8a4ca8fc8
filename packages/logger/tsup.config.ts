import { defineConfig } from "tsup";
import { packageConfig } from "../../tsup.base.js";

// Three entries: the package; its defaults alone (for a CLI's --help); the readers of a logged
// record's fields alone (for those who read records: reports, traces, notifications).
export default defineConfig(
  packageConfig({
    dts: { entry: ["src/index.ts", "src/defaults.ts", "src/record-fields.ts"] },
  }),
);
