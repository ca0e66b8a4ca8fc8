import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  canMountSmallFileSystem,
  mountSmallFileSystem,
  type SmallFileSystem,
} from "@cursor-wrap/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { unwrapConfig, wrapConfig } from "./config.js";
import { McpConfigError } from "./config-error.js";
import { readConfigFile, updateConfigFile } from "./config-file.js";

const PROXY = {
  command: "/usr/local/bin/node",
  prefix: ["/opt/cursor-wrap/bin/cursor-wrap.js", "mcp", "proxy"],
};
const wrap = (config: unknown) => wrapConfig(config, PROXY);

const CONFIG = {
  mcpServers: {
    github: { command: "npx", args: ["-y", "@modelcontextprotocol/server-github"] },
    bare: { command: "/usr/bin/my-server" },
  },
};
const ORIGINAL = `${JSON.stringify(CONFIG, null, 4)}\n`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "mcp-config-file-test-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The error `run` throws, which must be a one-line McpConfigError. */
function failure(run: () => unknown): McpConfigError {
  try {
    run();
  } catch (error) {
    expect(McpConfigError.isInstance(error)).toBe(true);
    expect((error as Error).message).not.toContain("\n");
    return error as McpConfigError;
  }
  throw new Error("expected a failure");
}

/** Names in `directory` other than the config and the files a test planted. */
const leftovers = (directory: string, known: string[]): string[] =>
  readdirSync(directory).filter((name) => !known.includes(name) && name !== ".filler");

const mkfifo = (path: string): void => {
  expect(spawnSync("mkfifo", [path]).status).toBe(0);
};

describe("updateConfigFile", () => {
  it("writes a verified backup and replaces the file atomically, keeping its indentation", () => {
    const path = join(dir, "mcp.json");
    writeFileSync(path, ORIGINAL);
    const update = updateConfigFile(path, wrap);
    expect(update.changed).toEqual(["github", "bare"]);
    expect(readFileSync(update.backup!, "utf8")).toBe(ORIGINAL);
    expect(readFileSync(path, "utf8")).toContain('\n    "mcpServers"');
    expect(leftovers(dir, ["mcp.json", "mcp.json.cursor-wrap-backup"])).toEqual([]);
  });

  it("gives back the exact bytes on unwrap after wrap, whatever their formatting", () => {
    const path = join(dir, "mcp.json");
    // Formatting no serialiser reproduces: mixed spacing, an escape, no final newline.
    const original =
      '{ "mcpServers" : {\n  "github": {"command": "npx",   "args": ["-y", "srv"]},\n\t"x\\u0041": { "command": "a" } },\n  "other": [1,2,  3] }';
    writeFileSync(path, original);
    updateConfigFile(path, wrap);
    const back = updateConfigFile(path, unwrapConfig, { restoreExactly: true });
    expect(back.restoredFromBackup).toBe(true);
    expect(readFileSync(path, "utf8")).toBe(original);
  });

  it("keeps a byte order mark through wrap and unwrap", () => {
    const path = join(dir, "mcp.json");
    const original = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(ORIGINAL)]);
    writeFileSync(path, original);
    updateConfigFile(path, wrap);
    expect(readFileSync(path).subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(readFileSync(path, "utf8")).toContain("cursor-wrap");
    // Edited meanwhile (no exact restore): unwrapped entry by entry, the mark still there.
    updateConfigFile(path, unwrapConfig);
    expect(readFileSync(path)).toEqual(original);
  });

  it("unwraps entry by entry when the file was edited since the wrap", () => {
    const path = join(dir, "mcp.json");
    writeFileSync(path, ORIGINAL);
    updateConfigFile(path, wrap);
    const edited = JSON.parse(readFileSync(path, "utf8")) as {
      mcpServers: Record<string, unknown>;
    };
    edited.mcpServers.added = { url: "https://example.com/mcp" };
    writeFileSync(path, JSON.stringify(edited, null, 4));
    const back = updateConfigFile(path, unwrapConfig, { restoreExactly: true });
    expect(back.restoredFromBackup).toBeUndefined();
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({
      mcpServers: { ...CONFIG.mcpServers, added: { url: "https://example.com/mcp" } },
    });
  });

  it("changes nothing with dryRun, and says what would change", () => {
    const path = join(dir, "mcp.json");
    writeFileSync(path, JSON.stringify(CONFIG));
    const update = updateConfigFile(path, wrap, { dryRun: true });
    expect(update.after).not.toBe(update.before);
    expect(readFileSync(path, "utf8")).toBe(JSON.stringify(CONFIG));
    expect(update.backup).toBeUndefined();
    expect(readdirSync(dir)).toEqual(["mcp.json"]);
  });

  it("refuses a read-only config, even where its directory would let it be replaced", () => {
    const path = join(dir, "mcp.json");
    writeFileSync(path, ORIGINAL, { mode: 0o444 });
    chmodSync(path, 0o444);
    expect(failure(() => updateConfigFile(path, wrap)).message).toMatch(
      /mcp\.json.*is read-only; nothing was changed/,
    );
    expect(readFileSync(path, "utf8")).toBe(ORIGINAL);
    expect(lstatSync(path).mode & 0o777).toBe(0o444);
    expect(leftovers(dir, ["mcp.json"])).toEqual([]);
    // Looking is no change: a dry run still says what would change.
    expect(updateConfigFile(path, wrap, { dryRun: true }).changed).toEqual(["github", "bare"]);
  });

  it("says clearly when the file is missing, not JSON, or not UTF-8", () => {
    expect(failure(() => updateConfigFile(join(dir, "none.json"), unwrapConfig)).message).toMatch(
      /no such file/,
    );
    writeFileSync(join(dir, "bad.json"), "{ nope");
    expect(failure(() => updateConfigFile(join(dir, "bad.json"), unwrapConfig)).message).toMatch(
      /not valid JSON/,
    );
    writeFileSync(join(dir, "latin1.json"), Buffer.from([0x7b, 0xe9, 0x7d]));
    expect(failure(() => readConfigFile(join(dir, "latin1.json"))).message).toMatch(/not UTF-8/);
  });
});

describe("updateConfigFile with planted links, FIFOs and directories", () => {
  /** A file outside the project the planted link points at (the user's own config, say). */
  let victim: string;
  let project: string;
  let path: string;
  const VICTIM = '{"mcpServers":{"mine":{"command":"my-own-server"}}}\n';
  beforeEach(() => {
    victim = join(dir, "home-mcp.json");
    writeFileSync(victim, VICTIM);
    project = join(dir, "project", ".cursor");
    mkdirSync(project, { recursive: true });
    path = join(project, "mcp.json");
    writeFileSync(path, ORIGINAL);
  });

  it("refuses a backup that is a link, and writes nothing through it", () => {
    symlinkSync(victim, `${path}.cursor-wrap-backup`);
    const error = failure(() => updateConfigFile(path, wrap));
    expect(error.message).toContain("mcp.json.cursor-wrap-backup is a symbolic link");
    expect(readFileSync(victim, "utf8")).toBe(VICTIM);
    expect(readFileSync(path, "utf8")).toBe(ORIGINAL);
    expect(lstatSync(`${path}.cursor-wrap-backup`).isSymbolicLink()).toBe(true);
    expect(leftovers(project, ["mcp.json", "mcp.json.cursor-wrap-backup"])).toEqual([]);
  });

  it("refuses a dangling backup link (it would create its target)", () => {
    const target = join(dir, "would-be-created");
    symlinkSync(target, `${path}.cursor-wrap-backup`);
    failure(() => updateConfigFile(path, wrap));
    expect(existsSync(target)).toBe(false);
  });

  it("refuses a lock that is a link, and never removes or follows it", () => {
    symlinkSync(victim, `${path}.cursor-wrap-lock`);
    const error = failure(() => updateConfigFile(path, wrap));
    expect(error.message).toContain("the lock");
    expect(error.message).toContain("is a symbolic link");
    expect(readFileSync(victim, "utf8")).toBe(VICTIM);
    expect(lstatSync(`${path}.cursor-wrap-lock`).isSymbolicLink()).toBe(true);
    expect(readFileSync(path, "utf8")).toBe(ORIGINAL);
  });

  it("refuses a lock or a backup that is a FIFO or a directory, without blocking", () => {
    for (const [side, make] of [
      ["lock", mkfifo],
      ["backup", mkfifo],
      ["lock", (p: string) => mkdirSync(p)],
      ["backup", (p: string) => mkdirSync(p)],
    ] as const) {
      const planted = `${path}.cursor-wrap-${side}`;
      make(planted);
      const error = failure(() => updateConfigFile(path, wrap));
      expect(error.message).toMatch(/is a (FIFO \(named pipe\)|directory)/);
      expect(readFileSync(path, "utf8")).toBe(ORIGINAL);
      rmSync(planted, { recursive: true });
    }
  });

  it("refuses a config that is a directory or a FIFO, in one line and without blocking", () => {
    const asDirectory = join(dir, "dir.json");
    mkdirSync(asDirectory);
    expect(failure(() => updateConfigFile(asDirectory, wrap)).message).toMatch(
      /is a directory, not a config file/,
    );
    const asFifo = join(dir, "fifo.json");
    mkfifo(asFifo);
    expect(failure(() => updateConfigFile(asFifo, wrap)).message).toMatch(/FIFO/);
    expect(failure(() => readConfigFile(asFifo)).message).toMatch(/FIFO/);
  });

  it("changes a config that is a link at its target, says so, and keeps the link", () => {
    const real = join(dir, "dotfiles-mcp.json");
    writeFileSync(real, ORIGINAL);
    rmSync(path);
    symlinkSync(real, path);
    const update = updateConfigFile(path, wrap);
    expect(update.target).toBe(real);
    expect(lstatSync(path).isSymbolicLink()).toBe(true);
    expect(readFileSync(`${real}.cursor-wrap-backup`, "utf8")).toBe(ORIGINAL);
    expect(JSON.parse(readFileSync(real, "utf8")).mcpServers.github.command).toBe(PROXY.command);
    // Nothing was created beside the link in the project.
    expect(readdirSync(project)).toEqual(["mcp.json"]);
  });

  it("refuses a config link that points nowhere or at a directory", () => {
    rmSync(path);
    symlinkSync(join(dir, "nowhere"), path);
    expect(failure(() => updateConfigFile(path, wrap)).message).toMatch(/link to a file that/);
    rmSync(path);
    symlinkSync(dir, path);
    expect(failure(() => updateConfigFile(path, wrap)).message).toMatch(/a directory/);
  });

  it("never writes through a link at an old fixed temporary name", () => {
    const oldTemporary = join(project, `.mcp.json.cursor-wrap-${process.pid}.tmp`);
    symlinkSync(victim, oldTemporary);
    updateConfigFile(path, wrap);
    expect(readFileSync(victim, "utf8")).toBe(VICTIM);
    expect(lstatSync(oldTemporary).isSymbolicLink()).toBe(true);
  });
});

describe("updateConfigFile and the lock", () => {
  it("refuses while a live cursor-wrap holds the lock", () => {
    const path = join(dir, "mcp.json");
    writeFileSync(path, ORIGINAL);
    // A live process recorded with its real start time: this test's parent.
    const stat = readFileSync(`/proc/${process.ppid}/stat`, "latin1");
    const startTime = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    writeFileSync(`${path}.cursor-wrap-lock`, `${process.ppid} ${startTime}\n`);
    expect(failure(() => updateConfigFile(path, unwrapConfig)).message).toMatch(
      new RegExp(`another cursor-wrap \\(pid ${process.ppid}\\)`),
    );
    expect(readFileSync(`${path}.cursor-wrap-lock`, "utf8")).toBe(`${process.ppid} ${startTime}\n`);
  });

  it.each([
    ["a pid that is gone", "999999999\n"],
    ["pid 1", "1\n"],
    ["a live pid with another start time (a reused number)", `${process.ppid} 1\n`],
    ["no pid at all", "garbage"],
  ])("takes over a stale lock naming %s, and removes its own", (_, content) => {
    const path = join(dir, "mcp.json");
    writeFileSync(path, ORIGINAL);
    writeFileSync(`${path}.cursor-wrap-lock`, content);
    expect(updateConfigFile(path, wrap).changed).toHaveLength(2);
    expect(existsSync(`${path}.cursor-wrap-lock`)).toBe(false);
  });
});

// A full or read-only file system needs a small one of its own: a tmpfs, which root may mount.
// Where mounting is refused (no root, a sandbox), these tests cannot set the scene and are skipped.
const canMount = canMountSmallFileSystem();

describe("updateConfigFile on a full or read-only disk", () => {
  let small: SmallFileSystem | undefined;
  afterEach(() => {
    small?.remove();
    small = undefined;
  });

  /** A config of many servers (about 20 KB), larger once wrapped. */
  const bigConfig = (): string =>
    `${JSON.stringify(
      {
        mcpServers: Object.fromEntries(
          Array.from({ length: 100 }, (_, index) => [
            `server-${index}`,
            { command: "npx", args: ["-y", `@example/mcp-server-${"x".repeat(100)}-${index}`] },
          ]),
        ),
      },
      null,
      2,
    )}\n`;

  it.skipIf(!canMount)(
    "fails in one line and leaves the config whole when the new config does not fit",
    () => {
      small = mountSmallFileSystem(256 * 1024);
      const path = join(small.dir, "mcp.json");
      const original = bigConfig();
      writeFileSync(path, original);
      const pages = (bytes: number) => Math.ceil(bytes / 4_096);
      const wrappedBytes = Buffer.byteLength(
        JSON.stringify(wrap(JSON.parse(original)).config, null, 2),
      );
      // Room for the lock and the backup, and a page of the new config: not all of it.
      expect(pages(wrappedBytes)).toBeGreaterThan(2);
      small.fillLeaving((1 + pages(original.length) + 1) * 4_096);
      const error = failure(() => updateConfigFile(path, wrap));
      expect(error.message).toMatch(/ENOSPC \(no space left on device\); nothing was changed/);
      expect(readFileSync(path, "utf8")).toBe(original);
      expect(leftovers(small.dir, ["mcp.json", "mcp.json.cursor-wrap-backup"])).toEqual([]);
    },
  );

  it.skipIf(!canMount)("never truncates an earlier backup when the new one does not fit", () => {
    small = mountSmallFileSystem(256 * 1024);
    const path = join(small.dir, "mcp.json");
    const original = bigConfig();
    writeFileSync(path, original);
    const earlier = '{"mcpServers":{"earlier":{"command":"kept"}}}\n';
    writeFileSync(`${path}.cursor-wrap-backup`, earlier);
    // Room for the lock alone.
    small.fillLeaving(4_096);
    const error = failure(() => updateConfigFile(path, wrap));
    expect(error.message).toMatch(/the backup .*ENOSPC/);
    expect(readFileSync(`${path}.cursor-wrap-backup`, "utf8")).toBe(earlier);
    expect(readFileSync(path, "utf8")).toBe(original);
    expect(leftovers(small.dir, ["mcp.json", "mcp.json.cursor-wrap-backup"])).toEqual([]);
  });

  it.skipIf(!canMount)("says in one line that a read-only directory cannot be changed", () => {
    small = mountSmallFileSystem(64 * 1024);
    const path = join(small.dir, "mcp.json");
    writeFileSync(path, ORIGINAL);
    small.makeReadOnly();
    const error = failure(() => updateConfigFile(path, wrap));
    expect(error.message).toMatch(/cannot create the lock .*EROFS \(read-only file system\)/);
    expect(readFileSync(path, "utf8")).toBe(ORIGINAL);
  });
});
