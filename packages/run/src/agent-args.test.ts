import { describe, expect, it } from "vitest";
import { plainAgentArguments, signInArgs, turnArgs } from "./agent-args.js";

describe("plainAgentArguments", () => {
  it("gives the sign-in flags their roles, in either form, and passes the rest token by token", () => {
    const given = plainAgentArguments([
      "--workspace",
      "/w",
      "--api-key",
      "k1",
      "--auth-token=t1",
      "-H",
      "X-Team: a",
      "--endpoint=https://e",
      "-e",
      "https://f",
    ]);
    expect(given.map((argument) => [argument.tokens, argument.flag?.role])).toEqual([
      [["--workspace"], undefined],
      [["/w"], undefined],
      [["--api-key", "k1"], "credential"],
      [["--auth-token=t1"], "credential"],
      [["-H", "X-Team: a"], "connection"],
      [["--endpoint=https://e"], "connection"],
      [["-e", "https://f"], "connection"],
    ]);
    expect(given[2]?.value).toBe("k1");
    expect(given[3]?.value).toBe("t1");
  });

  it("reads a short flag's attached value as commander does", () => {
    const given = plainAgentArguments(["-HX-Team: a", "-ehttps://e", "-mgpt-5"]);
    expect(given.map((argument) => [argument.tokens, argument.value, argument.flag?.role])).toEqual(
      [
        [["-HX-Team: a"], "X-Team: a", "connection"],
        [["-ehttps://e"], "https://e", "connection"],
        [["-mgpt-5"], undefined, undefined],
      ],
    );
  });

  it("leaves a sign-in flag without its value as it is", () => {
    expect(plainAgentArguments(["--api-key"])).toEqual([{ tokens: ["--api-key"] }]);
  });

  it("lets an auth profile's key replace the caller's --api-key in the turn", () => {
    const given = plainAgentArguments(["--api-key", "k1", "-e", "https://e"]);
    const args = (profileCredentials: boolean) =>
      turnArgs({ given, force: false, resume: undefined, firstTurn: true, profileCredentials });
    expect(args(false)).toEqual([
      "--print",
      "--output-format",
      "stream-json",
      "--api-key",
      "k1",
      "-e",
      "https://e",
    ]);
    expect(args(true)).toEqual(["--print", "--output-format", "stream-json", "-e", "https://e"]);
  });
});

describe("signInArgs", () => {
  const given = plainAgentArguments([
    "--model",
    "gpt-5",
    "--api-key",
    "k1",
    "-H",
    "A: b",
    "--trust",
  ]);

  it("keeps only the turn's credentials and connection, in order", () => {
    expect(signInArgs(given, false)).toEqual(["--api-key", "k1", "-H", "A: b"]);
  });

  it("leaves the credentials out while an auth profile supplies its own", () => {
    expect(signInArgs(given, true)).toEqual(["-H", "A: b"]);
  });
});
