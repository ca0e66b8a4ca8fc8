// For tests of code built on `runAgent`: an agent process that lives in memory, driven by the
// test (its output, its exit), to pass as the `start` option.

export type { FakeAgent } from "./fake-agent-process.js";
export { fakeAgentProcess } from "./fake-agent-process.js";
