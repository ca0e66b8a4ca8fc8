export type {
  AcpAgentHandle,
  AcpAgentLauncher,
  AgentExit,
  AgentKill,
  SupervisedAgentOptions,
} from "./agent-process.js";
export { supervisedAgent } from "./agent-process.js";
export type { AcpVersion, AgentFeatures, UpdateMeaning } from "./protocol.js";
export { agentFeatures, METHODS, updateMeaning } from "./protocol.js";
export type { AcpProxy, AcpProxyEnd, AcpProxyOptions } from "./proxy.js";
export { ACP_DEFAULTS, startAcpProxy } from "./proxy.js";
export type { AcpLevel, AcpProxyLog, AcpRecordName } from "./records.js";
export { ACP_RECORDS } from "./records.js";
