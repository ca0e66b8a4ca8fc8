export { describeError, type FileKindStats, kindOf } from "./file-errors.js";
export { formatBytes } from "./format-bytes.js";
export { formatDuration } from "./format-duration.js";
