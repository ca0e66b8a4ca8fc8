import { describe, expect, it } from "vitest";
import { failureOfEnding } from "./ending.js";
import { failureOf } from "./failure.js";

const exit = (code: number | null, signal: string | null = null) => ({ code, signal });

describe("failureOfEnding", () => {
  it("keeps the failure the agent named", () => {
    const named = failureOf("auth", "Authentication required.");
    expect(failureOfEnding({ named, reconnecting: true, streamStarted: true, exit: exit(1) })).toBe(
      named,
    );
  });

  it("calls a non-zero exit while reconnecting a lost connection", () => {
    expect(
      failureOfEnding({
        named: undefined,
        reconnecting: true,
        streamStarted: true,
        exit: exit(1),
        lastStderr: "Error: network down",
      }),
    ).toEqual({ kind: "connection", transient: true, detail: "Error: network down" });
  });

  it("calls a non-zero exit after the stream began a stream that ended mid-turn", () => {
    expect(
      failureOfEnding({
        named: undefined,
        reconnecting: false,
        streamStarted: true,
        exit: exit(null, "SIGKILL"),
      }),
    ).toEqual({
      kind: "ended-mid-turn",
      transient: true,
      detail: "the agent exited with signal SIGKILL without a result",
    });
  });

  it("leaves an exit before the stream began, and an exit 0, as ordinary abnormal exits", () => {
    expect(
      failureOfEnding({
        named: undefined,
        reconnecting: false,
        streamStarted: false,
        exit: exit(1),
      }),
    ).toBeUndefined();
    expect(
      failureOfEnding({ named: undefined, reconnecting: true, streamStarted: true, exit: exit(0) }),
    ).toBeUndefined();
  });
});
