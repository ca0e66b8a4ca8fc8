export type { ConsoleSinkOptions, ConsoleStream } from "./console-sink.js";
export { renderConsoleLine } from "./console-sink.js";
export { LogDirError } from "./errors.js";
export type { LogFileName, LogKind, LogTag } from "./file-names.js";
export { logFileName, parseLogFileName } from "./file-names.js";
export type { LevelName, RecordLevel } from "./levels.js";
export { LEVELS } from "./levels.js";
export { ensurePrivateDirectory } from "./private-directory.js";
export type { LogEntry } from "./raw-record.js";
export { logEntryEvent } from "./raw-record.js";
export type { McpLogSummary, SessionSummary } from "./read-logs.js";
export { isLogRecord, listMcpLogs, listSessions, readSessionLog } from "./read-logs.js";
export type { LineRedactor } from "./redact.js";
export {
  createLineRedactor,
  isSecretName,
  redact,
  redactJsonValue,
  redactKnownSecrets,
} from "./redact.js";
export type { PruneOptions } from "./retention.js";
export { DEFAULT_RETENTION_MS, pruneLogs } from "./retention.js";
export type {
  Fields,
  RecordTap,
  SessionEnd,
  SessionLog,
  SessionLogOptions,
} from "./session-log.js";
export { openSessionLog, recordStringJson, SESSION_LOG_RECORDS } from "./session-log.js";
