import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensurePrivateDirectory } from "./private-directory.js";
import { openSessionLog } from "./session-log.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "private-dir-test-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("ensurePrivateDirectory", () => {
  it("creates every missing level with mode 0700", () => {
    const logs = join(dir, ".cursor-wrap", "logs");
    expect(ensurePrivateDirectory(logs)).toEqual({ writableByOthers: false });
    expect(statSync(join(dir, ".cursor-wrap")).mode & 0o777).toBe(0o700);
    expect(statSync(logs).mode & 0o777).toBe(0o700);
  });

  it("fails at once where a level cannot be made (Node's recursive mkdir spins on /proc/nope)", () => {
    expect(() => ensurePrivateDirectory("/proc/nope/logs")).toThrow(
      expect.objectContaining({ code: expect.stringMatching(/ENOENT|EACCES|EPERM/) }),
    );
    const file = join(dir, "file");
    writeFileSync(file, "");
    expect(() => ensurePrivateDirectory(join(file, "logs"))).toThrow(
      expect.objectContaining({ code: "ENOTDIR" }),
    );
  });

  it("says when others can write to an existing directory, and the log warns once", () => {
    const shared = join(dir, "shared");
    ensurePrivateDirectory(shared);
    chmodSync(shared, 0o777);
    expect(ensurePrivateDirectory(shared)).toEqual({ writableByOthers: true });
    let console = "";
    const log = openSessionLog({
      dir: shared,
      retentionMs: 0,
      fsync: false,
      console: { stream: { write: (text: string) => (console += text) }, level: "warn" },
    });
    log.close({ outcome: "completed", flagged: false, exit_code: 0 });
    expect(console.match(/other users can write to the log directory/g)).toHaveLength(1);
  });
});
