export type { DeadlineTimer, DeadlineTimerOptions } from "./deadline-timer.js";
export { createDeadlineTimer, MAX_TIMER_DELAY_MS } from "./deadline-timer.js";
export {
  createMonitor,
  DEFAULT_BACKGROUND_WAIT_MS,
  DEFAULT_LIVENESS,
  DEFAULT_THRESHOLDS,
  DEFAULT_TOOL_TIMEOUTS,
} from "./monitor.js";
export { CALLS_LISTED } from "./reasons.js";
export type {
  SimulateOptions,
  SimulationEntry,
  SimulationResult,
  TimedSignal,
} from "./simulate.js";
export { simulate } from "./simulate.js";
export { checkMonitorOptions } from "./thresholds.js";
export type {
  ActivitySignal,
  BackgroundDetail,
  BackgroundEndSignal,
  BackgroundWork,
  CheckResult,
  DoneSignal,
  ExitSignal,
  LivenessOptions,
  LivenessReport,
  LivenessSignal,
  Monitor,
  MonitorOptions,
  MonitorSignal,
  MonitorSnapshot,
  MonitorWarning,
  OpenCallDetail,
  Phase,
  Reason,
  ReasonKind,
  SessionSignal,
  SoftWarning,
  ToolEndSignal,
  ToolStartSignal,
  Verdict,
} from "./types.js";
export type { StallInfo, WatchOptions } from "./watch.js";
export { watch } from "./watch.js";
