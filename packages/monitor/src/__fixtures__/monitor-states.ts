import {
  type BackgroundEntry,
  createMonitorState,
  type MonitorState,
  type OpenCall,
  openCall,
  type SampleState,
} from "../monitor-state.js";
import { resolveThresholds, type Thresholds } from "../thresholds.js";
import type { LivenessReport, MonitorOptions } from "../types.js";

/** A tool call in a {@link StateSpec}: only its start and allowance are required. */
export type CallSpec = Pick<OpenCall, "id" | "startedAt" | "limitMs"> & Partial<OpenCall>;

/** Background work in a {@link StateSpec}. */
export type BackgroundSpec = Pick<BackgroundEntry, "id" | "since"> & Partial<BackgroundEntry>;

/** A monitor state described by its fields, for tests of the parts that read it. */
export interface StateSpec
  extends Partial<
    Omit<MonitorState, "openCalls" | "backgroundCalls" | "backgroundWork" | "samples">
  > {
  calls?: readonly CallSpec[];
  background?: readonly BackgroundSpec[];
  samples?: Partial<SampleState>;
}

/** The state a monitor would have reached, built directly (times in ms, from 0 by default). */
export function stateWith(spec: StateSpec = {}): MonitorState {
  const { calls = [], background = [], samples = {}, startedAt = 0, ...fields } = spec;
  const state = createMonitorState(startedAt);
  Object.assign(state, fields);
  Object.assign(state.samples, samples);
  for (const call of calls) {
    openCall(state, {
      kind: "shell",
      label: undefined,
      timeoutMs: undefined,
      ...call,
    });
  }
  for (const work of background) {
    state.backgroundWork.set(work.id, { aliases: [], pid: undefined, label: undefined, ...work });
  }
  return state;
}

/** Thresholds from options, as `createMonitor` resolves them. */
export const thresholdsWith = (options: MonitorOptions = {}): Thresholds =>
  resolveThresholds(options);

/** Liveness on, with its defaults. */
export const withLiveness = (options: MonitorOptions = {}): Thresholds =>
  resolveThresholds({ liveness: {}, ...options });

/** A sample's report, as `takeSample` records it. */
export const report = (working: boolean, fields: Partial<LivenessReport> = {}): LivenessReport => ({
  working,
  spanMs: 30_000,
  cpuMs: working ? 4_000 : 0,
  quietMs: 60_000,
  message: working ? "working" : "parked",
  ...fields,
});
