import { describe, expect, it } from "vitest";
import { splitAcpArguments } from "./flags.js";

describe("splitAcpArguments", () => {
  it("gives cursor-agent's flags to the agent, before or after acp, as an editor passes them", () => {
    expect(splitAcpArguments(["--api-key", "KEY", "acp"])).toEqual({
      own: ["acp"],
      agent: ["--api-key", "KEY"],
    });
    expect(
      splitAcpArguments(["acp", "--model", "gpt-5", "-H", "X-Team: t", "-HX-A: 1", "--trust"]),
    ).toEqual({
      own: ["acp"],
      agent: ["--model", "gpt-5", "-H", "X-Team: t", "-HX-A: 1", "--trust"],
    });
    expect(splitAcpArguments(["-e", "https://api.example", "--api-key=K", "acp"]).agent).toEqual([
      "-e",
      "https://api.example",
      "--api-key=K",
    ]);
  });

  it("keeps the command's own flags, with their values, and everything after --", () => {
    expect(
      splitAcpArguments([
        "acp",
        "--idle-timeout",
        "2m",
        "--no-redact",
        "--log-dir=/tmp/l",
        "--api-key",
        "K",
        "--",
        "agent",
        "--model",
        "x",
        "acp",
      ]),
    ).toEqual({
      own: [
        "acp",
        "--idle-timeout",
        "2m",
        "--no-redact",
        "--log-dir=/tmp/l",
        "--",
        "agent",
        "--model",
        "x",
        "acp",
      ],
      agent: ["--api-key", "K"],
    });
    // An option neither knows stays the command's, which says it is unknown.
    expect(splitAcpArguments(["acp", "--idle-timout", "2m"]).own).toEqual([
      "acp",
      "--idle-timout",
      "2m",
    ]);
  });

  it("leaves help and version to the command", () => {
    for (const flag of ["--help", "-h", "--version", "-v"]) {
      expect(splitAcpArguments(["acp", flag])).toEqual({ own: ["acp", flag], agent: [] });
    }
  });

  it("never takes the command's name for an optional value", () => {
    expect(splitAcpArguments(["--resume", "acp"])).toEqual({ own: ["acp"], agent: ["--resume"] });
    expect(splitAcpArguments(["acp", "--resume", "chat-1"]).agent).toEqual(["--resume", "chat-1"]);
  });
});
