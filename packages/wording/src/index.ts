export { formatBytes } from "./format-bytes.js";
export { formatDuration } from "./format-duration.js";
