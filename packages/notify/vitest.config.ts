import { realProcessTests } from "../../vitest.shared.js";

export default realProcessTests;
