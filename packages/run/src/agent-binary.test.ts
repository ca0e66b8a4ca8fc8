import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findAgentBinary } from "./agent-binary.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agent-binary-test-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function executable(path: string): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, "#!/bin/sh\n");
  chmodSync(path, 0o755);
  return path;
}

describe("findAgentBinary", () => {
  it("looks for cursor-agent, then agent, on PATH, then in ~/.local/bin", () => {
    const home = join(dir, "home");
    const path = join(dir, "bin");
    const local = executable(join(home, ".local", "bin", "agent"));
    expect(findAgentBinary(undefined, { PATH: path }, home)).toBe(local);
    const onPath = executable(join(path, "agent"));
    expect(findAgentBinary(undefined, { PATH: path }, home)).toBe(onPath);
    const preferred = executable(join(path, "cursor-agent"));
    expect(findAgentBinary(undefined, { PATH: path }, home)).toBe(preferred);
  });

  it("takes the binary it is given, and names every place tried when there is none", () => {
    const given = executable(join(dir, "my-agent"));
    expect(findAgentBinary(given, { PATH: "" }, dir)).toBe(given);
    expect(() => findAgentBinary(undefined, { PATH: "" }, dir)).toThrow(
      /tried cursor-agent on PATH, agent on PATH, ~\/\.local\/bin\/cursor-agent, ~\/\.local\/bin\/agent/,
    );
    expect(() => findAgentBinary(join(dir, "nope"), { PATH: "" }, dir)).toThrow(/no such file/);
  });
});
