// The flags of `cursor-wrap replay`, in the shape of every command's table: its own, and the
// run's thresholds (the rows that feed the monitor).

import { flag, parseBoolean } from "../../options/flag-table.js";
import { showOnOff } from "../../options/flags.js";
import { MONITOR_FLAGS } from "../../options/monitor-options.js";
import { parseDuration, showDuration } from "../../options/units.js";

/** `replay`'s own flags. */
export const REPLAY_OWN_FLAGS = [
  flag({
    key: "json",
    name: "json",
    description: "Print JSON instead of text",
    parse: parseBoolean,
    default: false,
    show: showOnOff,
    env: false,
  }),
  flag({
    key: "tailMs",
    name: "tail",
    placeholder: "<duration>",
    description: "Keep the clock running this long after the last line",
    parse: (value, source): number | undefined => parseDuration(value, source),
    default: undefined,
    show: (value) =>
      value === undefined
        ? "until the next verdict when a turn ends without a result and without a kill, else 0"
        : showDuration(value),
    env: false,
  }),
];

/**
 * Every flag of `cursor-wrap replay`. The thresholds a flag or variable gives win over the ones
 * a session log recorded, which win over the defaults.
 */
export const REPLAY_FLAGS = [...REPLAY_OWN_FLAGS, ...MONITOR_FLAGS];
