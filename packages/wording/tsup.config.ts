import { defineConfig } from "tsup";
import { packageConfig } from "../../tsup.base.js";

export default defineConfig(packageConfig());
