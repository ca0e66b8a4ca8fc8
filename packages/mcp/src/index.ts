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
export {
  BATCH_REJECTED_CODE,
  cancelledNotification,
  REQUEST_TIMEOUT_CODE,
  SERVER_GONE_CODE,
  toolOf,
} from "./mcp-messages.js";
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
