export type {
  ConfigUpdate,
  McpServerEntry,
  ProxyInvocation,
  RewriteResult,
  ServerStatus,
} from "./config.js";
export {
  cursorConfigPaths,
  isWrapped,
  McpConfigError,
  readConfigFile,
  serverStatuses,
  unwrapConfig,
  updateConfigFile,
  wrapConfig,
} from "./config.js";
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
export type { McpProxy, McpProxyEnd, McpProxyOptions } from "./proxy.js";
export { MCP_DEFAULTS, startMcpProxy } from "./proxy.js";
export type { McpLevel, McpProxyLog, McpRecordName } from "./records.js";
export { MCP_RECORDS } from "./records.js";
