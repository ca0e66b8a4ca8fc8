export type { McpServerEntry, ProxyInvocation, RewriteResult, ServerStatus } from "./config.js";
export {
  cursorConfigPaths,
  isWrapped,
  serverStatuses,
  unwrapConfig,
  wrapConfig,
} from "./config.js";
export { McpConfigError } from "./config-error.js";
export type { ConfigText, ConfigUpdate, UpdateOptions } from "./config-file.js";
export { CONFIG_SIDE_FILES, readConfigFile, updateConfigFile } from "./config-file.js";
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
