export type { AgentEventObject, EventContext } from "./agent-events.js";
export { agentEvents } from "./agent-events.js";
export type { ClientPlace, ClientServer, FakeClientName } from "./client-config-reader.js";
export { readClientServers } from "./client-config-reader.js";
export type {
  AcpRecordEntry,
  FakeAcpAgentOptions,
  FakeAgentOptions,
  Invocation,
} from "./fake-agent.js";
export {
  fakeAcpAgentBin,
  fakeAcpAgentEnv,
  fakeAgentBin,
  fakeAgentEnv,
  fakeMcpClientBin,
  fakeMcpServerBin,
  isAlive,
  readAcpRecord,
  readInvocations,
  readPids,
} from "./fake-agent.js";
export { writeQuickAgent } from "./quick-agent.js";
export type { ScenarioContext, Step } from "./scenarios.js";
export type { SmallFileSystem } from "./small-file-system.js";
export { canMountSmallFileSystem, mountSmallFileSystem } from "./small-file-system.js";
