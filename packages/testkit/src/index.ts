export type { AgentEventObject, EventContext } from "./agent-events.js";
export { agentEvents } from "./agent-events.js";
export type { Capture } from "./captures.js";
export { realCapture, realCaptures, realCapturesDir } from "./captures.js";
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
  fakeMcpServerBin,
  isAlive,
  readAcpRecord,
  readInvocations,
  readPids,
} from "./fake-agent.js";
export type { ScenarioContext, Step } from "./scenarios.js";
export { scenarios } from "./scenarios.js";
