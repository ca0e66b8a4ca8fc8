// The flags of `cursor-wrap logs`, in the shape of every command's table.

import { flag, parseBoolean, rowsOf } from "../../options/flag-table.js";
import { FLAGS, showOnOff } from "../../options/flags.js";

/** Every flag of `cursor-wrap logs`: its own, and the run's `--log-dir`. */
export const LOGS_FLAGS = [
  flag({
    key: "flagged",
    name: "flagged",
    description: "Only sessions that ended in a hang, linger, budget or error",
    parse: parseBoolean,
    default: false,
    show: showOnOff,
    env: false,
  }),
  flag({
    key: "json",
    name: "json",
    description: "Print JSON instead of a table",
    parse: parseBoolean,
    default: false,
    show: showOnOff,
    env: false,
  }),
  ...rowsOf(FLAGS, ["logDir"]),
];
