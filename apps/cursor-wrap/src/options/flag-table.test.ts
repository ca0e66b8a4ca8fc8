import { describe, expect, it } from "vitest";
import { UsageError } from "../usage-error.js";
import {
  commandFlags,
  flag,
  flagHelp,
  givenOptions,
  parseBoolean,
  resolveOptions,
} from "./flag-table.js";
import { parseDuration } from "./units.js";

const TABLE = [
  flag({
    key: "waitMs",
    name: "wait",
    placeholder: "<duration>",
    description: "How long to wait",
    parse: parseDuration,
    default: 5_000,
  }),
  flag({
    key: "json",
    name: "json",
    description: "Print JSON",
    parse: parseBoolean,
    default: false,
    env: false,
  }),
  flag({
    key: "color",
    name: "color",
    description: "Colours",
    parse: parseBoolean,
    default: true,
    negated: "No colours",
  }),
];

describe("flag", () => {
  it("takes a row that feeds a monitor option only if the option takes its values", () => {
    const fits = flag({
      key: "quietMs",
      name: "quiet",
      placeholder: "<duration>",
      description: "Quiet",
      parse: parseDuration,
      default: 1_000,
      monitor: "liveness.maxQuietMs",
    });
    expect(fits.monitor).toBe("liveness.maxQuietMs");
    const misfit = flag({
      key: "timeouts",
      name: "timeouts",
      placeholder: "<duration>",
      description: "Not a map of tool kinds",
      parse: parseDuration,
      default: 1_000,
      // @ts-expect-error a duration is not what toolTimeouts takes
      monitor: "toolTimeouts",
    });
    expect(misfit.key).toBe("timeouts");
  });
});

describe("commandFlags", () => {
  it("reads a table's flags before --, in every form, and keeps what follows --", () => {
    const { given, afterDashDash } = commandFlags(
      ["show", "--wait", "2s", "--json", "--no-color", "--wait=3s", "--", "--wait", "9s"],
      TABLE,
    );
    expect(Object.fromEntries(given)).toEqual({ wait: "3s", json: true, color: false });
    expect(afterDashDash).toEqual(["--wait", "9s"]);
  });

  it("says which flag lacks its value", () => {
    expect(() => commandFlags(["--wait"], TABLE)).toThrow(new UsageError("--wait needs a value"));
  });
});

describe("resolveOptions", () => {
  it("takes the flag, then its variable, then its default", () => {
    const resolve = (argv: string[], env: NodeJS.ProcessEnv) =>
      resolveOptions(TABLE, { given: commandFlags(argv, TABLE).given, env });
    expect(resolve([], {})).toEqual({ waitMs: 5_000, json: false, color: true });
    expect(resolve([], { CURSOR_WRAP_WAIT: "1m", CURSOR_WRAP_NO_COLOR: "1" })).toEqual({
      waitMs: 60_000,
      json: false,
      color: false,
    });
    expect(resolve(["--wait", "2s"], { CURSOR_WRAP_WAIT: "1m" }).waitMs).toBe(2_000);
  });

  it("reads no variable for a row that has none", () => {
    expect(resolveOptions(TABLE, { given: new Map(), env: { CURSOR_WRAP_JSON: "1" } }).json).toBe(
      false,
    );
    expect(flagHelp(TABLE[1]!)).toBe("Print JSON (default: false)");
    expect(flagHelp(TABLE[0]!)).toBe("How long to wait (default: 5000; env CURSOR_WRAP_WAIT)");
  });

  it("names the flag or variable a bad value came from", () => {
    expect(() =>
      resolveOptions(TABLE, { given: new Map(), env: { CURSOR_WRAP_WAIT: "soon" } }),
    ).toThrow(/CURSOR_WRAP_WAIT takes a duration/);
  });

  it("gives only what the command line or a variable set, with givenOptions", () => {
    expect(givenOptions(TABLE, { given: new Map([["json", true]]), env: {} })).toEqual({
      json: true,
    });
  });
});
