export type { ClientConfigFile, ConfigLocations } from "./client-configs.js";
export {
  CLIENT_COMMANDS,
  clientConfigFiles,
  configFileFor,
  detectClient,
} from "./client-configs.js";
export type {
  EntryRef,
  McpServerEntry,
  ProxyInvocation,
  RewriteResult,
  RewriteScope,
  ServerStatus,
} from "./config.js";
export {
  cursorConfigPaths,
  isWrapped,
  sameEntry,
  serverStatuses,
  unwrapConfig,
  wrapConfig,
} from "./config.js";
export type {
  ClientName,
  ConfigDialect,
  DialectContext,
  DialectId,
  EntryForm,
  ServerMap,
} from "./config-dialects.js";
export {
  CLAUDE_CODE_USER_DIALECT,
  CLIENT_NAMES,
  DIALECTS,
  MCP_SERVERS_DIALECT,
  VSCODE_DIALECT,
  ZED_DIALECT,
} from "./config-dialects.js";
export { McpConfigError } from "./config-error.js";
export type { ConfigText, ConfigUpdate, UpdateOptions } from "./config-file.js";
export { CONFIG_SIDE_FILES, readConfigFile, updateConfigFile } from "./config-file.js";
export type { JsonEdit, JsonPath, JsonSyntax } from "./json-text.js";
export {
  BATCH_REJECTED_CODE,
  cancelledNotification,
  REQUEST_TIMEOUT_CODE,
  SERVER_GONE_CODE,
  toolOf,
} from "./mcp-messages.js";
export type {
  McpSession,
  SessionConfig,
  SessionOptions,
  SessionRecord,
  SessionRelease,
} from "./mcp-session.js";
export {
  beginMcpSession,
  listMcpSessions,
  recoverMcpSessions,
  sessionHolders,
} from "./mcp-session.js";
export type { McpProxy, McpProxyEnd, McpProxyOptions } from "./proxy.js";
export { startMcpProxy } from "./proxy.js";
export type { McpLink, McpLinkOptions } from "./proxy-link.js";
export { linkMcpPeers } from "./proxy-link.js";
export type { McpLevel, McpProxyLog, McpRecordName } from "./records.js";
export { MCP_RECORDS } from "./records.js";
export type { RequestPolicy } from "./request-policy.js";
export { describeRequest, MCP_DEFAULTS, timeoutFor } from "./request-policy.js";
export type { ServerProcess, ServerProcessOptions } from "./server-process.js";
export { startServerProcess } from "./server-process.js";
