import { realProcessTests } from "../../vitest.shared.js";

// Some tests run the fake agent as a real process.
export default realProcessTests;
