export { AgentSpawnError, PtyUnavailableError } from "./errors.js";
export type { KillStep, KillTreeOptions, KillTreeResult } from "./kill-tree.js";
export { killTree } from "./kill-tree.js";
export type { PtyModule } from "./load-pty.js";
export { loadPty } from "./load-pty.js";
export type {
  ExitInfo,
  GroupStopReport,
  ProcessGroup,
  ProcessGroupOptions,
} from "./process-group.js";
export { spawnProcessGroup } from "./process-group.js";
export type { ProcessEntry } from "./process-tree.js";
export {
  AGENT_TOKEN_VARIABLE,
  findAgentTree,
  isRunning,
  processExists,
  processStartTime,
} from "./process-tree.js";
export type {
  AgentProcess,
  KillReport,
  PtySize,
  StartOptions,
  SupervisorLogger,
} from "./start.js";
export {
  DEFAULT_DRAIN_GRACE_MS,
  DEFAULT_KILL_GRACE_MS,
  findExecutable,
  MAX_PTY_PROMPT_BYTES,
  SUPERVISOR_RECORDS,
  start,
} from "./start.js";
export type { ControlStripper } from "./terminal-controls.js";
export { createControlStripper } from "./terminal-controls.js";
export type { TreeSample, TreeSampler } from "./tree-sampler.js";
export { createTreeSampler } from "./tree-sampler.js";
export type { GuardedAgent, TreeSentinel, TreeSentinelOptions } from "./tree-sentinel.js";
export { startTreeSentinel } from "./tree-sentinel.js";
