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
export type { InvalidReason, JsonRpcId, Message } from "./jsonrpc.js";
export {
  classify,
  classifyValue,
  errorResponse,
  idKey,
  REQUEST_TIMEOUT_CODE,
  SERVER_GONE_CODE,
} from "./jsonrpc.js";
export type { Framed, LineSplitter } from "./line-splitter.js";
export { createLineSplitter } from "./line-splitter.js";
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
export { MCP_DEFAULTS, startMcpProxy } from "./proxy.js";
export type { McpLevel, McpProxyLog, McpRecordName } from "./records.js";
export { MCP_RECORDS } from "./records.js";
