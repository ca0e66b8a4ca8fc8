import { describe, expect, it } from "vitest";
import { buildArgs } from "./build-args.js";

describe("buildArgs", () => {
  it("always asks for headless stream-json, with --force by default", () => {
    expect(buildArgs()).toEqual(["--print", "--output-format", "stream-json", "--force"]);
  });

  it("adds --resume, --model and --workspace, then the pass-through arguments verbatim", () => {
    expect(
      buildArgs({
        resume: "d43015b9-0707-43f4-b2df-0bcea7891654",
        model: "sonnet-4",
        workspace: "/repo",
        passthrough: ["--stream-partial-output", "--api-key", "k", "--", "-p"],
      }),
    ).toEqual([
      "--print",
      "--output-format",
      "stream-json",
      "--resume",
      "d43015b9-0707-43f4-b2df-0bcea7891654",
      "--force",
      "--model",
      "sonnet-4",
      "--workspace",
      "/repo",
      "--stream-partial-output",
      "--api-key",
      "k",
      "--",
      "-p",
    ]);
  });

  it("leaves out --force when asked and ignores empty values", () => {
    expect(buildArgs({ force: false, resume: "", model: "", workspace: "" })).toEqual([
      "--print",
      "--output-format",
      "stream-json",
    ]);
  });
});
