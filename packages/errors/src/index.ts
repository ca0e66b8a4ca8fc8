export { CursorWrapError, type CursorWrapErrorOptions } from "./cursor-wrap-error.js";
