import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HISTORY_SIZE, openPromptHistory } from "./prompt-history.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "history-test-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("openPromptHistory", () => {
  it("keeps prompts across sessions, newest first, in a private file", () => {
    const file = join(dir, ".cursor-wrap", "history");
    const first = openPromptHistory(file);
    first.add("fix the build");
    first.add("two\nlines");
    first.add(" not this one");
    first.add("fix the build");
    expect(openPromptHistory(file).load()).toEqual(["fix the build", "two\nlines"]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, ".cursor-wrap")).mode & 0o777).toBe(0o700);
  });

  it("stays bounded and survives a damaged line", () => {
    const file = join(dir, "history");
    writeFileSync(file, '"old"\n{not json\n');
    const history = openPromptHistory(file);
    for (let index = 0; index < HISTORY_SIZE + 10; index += 1) history.add(`prompt ${index}`);
    const entries = history.load();
    expect(entries).toHaveLength(HISTORY_SIZE);
    expect(entries[0]).toBe(`prompt ${HISTORY_SIZE + 9}`);
    expect(readFileSync(file, "utf8")).not.toContain("not json");
  });
});
