import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  lstatSync,
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
import { CLIENT_FIXTURES, fixtureText } from "./__fixtures__/client-fixtures.js";
import { serverStatuses, wrapConfig } from "./config.js";
import { MCP_SERVERS_DIALECT } from "./config-dialects.js";
import { McpConfigError } from "./config-error.js";
import { updateConfigFile } from "./config-file.js";
import { parseJsonText } from "./json-text.js";
import {
  beginMcpSession,
  listMcpSessions,
  recoverMcpSessions,
  type SessionConfig,
  sessionHolders,
} from "./mcp-session.js";

const PROXY = {
  command: "/usr/local/bin/node",
  prefix: ["/opt/cursor-wrap/bin/cursor-wrap.js", "mcp", "proxy"],
  options: ["--tool-timeout", "hang=500ms"],
};

let dir: string;
let registryDir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "mcp-session-test-"));
  registryDir = join(dir, "registry");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const wrappedNames = (config: SessionConfig): string[] =>
  serverStatuses(parseJsonText(readFileSync(config.path, "utf8"), config.dialect), config)
    .filter((status) => status.wrapped)
    .map((status) => status.name);

/** The pid of a process that has exited (a session that was SIGKILLed). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  return Number(child.stdout.toString());
}

/** Make the registry and the journals say a session's process is gone. */
function killSession(id: string, configs: SessionConfig[]): void {
  const pid = deadPid();
  const record = join(registryDir, `${id}.json`);
  writeFileSync(
    record,
    JSON.stringify({ ...JSON.parse(readFileSync(record, "utf8")), pid, start: "1" }),
  );
  for (const config of configs) {
    const journalPath = `${config.path}.cursor-wrap-session`;
    const journal = JSON.parse(readFileSync(journalPath, "utf8"));
    for (const holder of journal.holders) if (holder.id === id) Object.assign(holder, { pid });
    writeFileSync(journalPath, JSON.stringify(journal));
  }
}

describe.each(CLIENT_FIXTURES)("an MCP session on $name", (fixture) => {
  const original = fixtureText(fixture.file);
  let config: SessionConfig;
  beforeEach(() => {
    config = {
      path: join(dir, fixture.file),
      dialect: fixture.dialect,
      context: fixture.project === undefined ? {} : { project: fixture.project },
    };
    writeFileSync(config.path, original);
  });
  const begin = (command = "agent") =>
    beginMcpSession({ configs: [config], proxy: PROXY, command, registryDir });

  it("wraps the stdio servers for the session, and gives the original bytes back at its end", () => {
    const session = begin("claude --resume");
    expect(session.configs[0]!.wrapped.map((ref) => ref.name)).toEqual(fixture.stdio);
    expect(wrappedNames(config)).toEqual(fixture.stdio);
    expect(readFileSync(config.path, "utf8")).toContain('"hang=500ms"');
    expect(listMcpSessions(registryDir)).toMatchObject([
      { id: session.id, pid: process.pid, command: "claude --resume", live: true },
    ]);
    expect(sessionHolders(config.path)).toMatchObject([{ pid: process.pid, live: true }]);
    const [release] = session.end();
    expect(release).toMatchObject({ exact: true, kept: [] });
    expect(release!.restored.map((ref) => ref.name)).toEqual(fixture.stdio);
    expect(readFileSync(config.path, "utf8")).toBe(original);
    expect(existsSync(`${config.path}.cursor-wrap-session`)).toBe(false);
    expect(listMcpSessions(registryDir)).toEqual([]);
    expect(session.end()).toEqual([]);
  });

  it("keeps what the client or the user changed during the session", () => {
    const session = begin();
    // The client rewrites its file as it runs (Claude Code re-serialises ~/.claude.json).
    const during = JSON.parse(
      JSON.stringify(parseJsonText(readFileSync(config.path, "utf8"), config.dialect)),
    ) as Record<string, unknown>;
    during.changedDuringSession = 7;
    const rewritten = `${JSON.stringify(during, null, 2)}\n`;
    writeFileSync(config.path, rewritten);
    const [release] = session.end();
    expect(release!.exact).toBe(false);
    expect(release!.restored.map((ref) => ref.name)).toEqual(fixture.stdio);
    const after = parseJsonText(readFileSync(config.path, "utf8"), config.dialect) as Record<
      string,
      unknown
    >;
    const { changedDuringSession, ...rest } = after;
    expect(changedDuringSession).toBe(7);
    expect(JSON.stringify(rest)).toBe(JSON.stringify(parseJsonText(original, config.dialect)));
    expect(wrappedNames(config)).toEqual([]);
  });

  it("is given back by the next start when its process was killed", () => {
    const session = begin();
    killSession(session.id, [config]);
    expect(listMcpSessions(registryDir)).toMatchObject([{ id: session.id, live: false }]);
    const [recovered] = recoverMcpSessions(registryDir);
    expect(recovered!.record.id).toBe(session.id);
    expect(recovered!.releases).toMatchObject([{ path: config.path, exact: true }]);
    expect(readFileSync(config.path, "utf8")).toBe(original);
    expect(listMcpSessions(registryDir)).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual([fixture.file, "registry"].sort());
  });

  it("nests: a second session shares the wrapped entries, the last one to end gives them back", () => {
    const first = begin("first");
    const second = begin("second");
    expect(second.configs[0]!.wrapped).toEqual([]);
    expect(second.configs[0]!.shared.map((ref) => ref.name)).toEqual(fixture.stdio);
    const [firstRelease] = first.end();
    expect(firstRelease!.restored).toEqual([]);
    expect(firstRelease!.kept.map((ref) => ref.name)).toEqual(fixture.stdio);
    expect(wrappedNames(config)).toEqual(fixture.stdio);
    const [secondRelease] = second.end();
    expect(secondRelease!.exact).toBe(true);
    expect(readFileSync(config.path, "utf8")).toBe(original);
  });

  it("refuses a planted link at its journal, and changes nothing", () => {
    const victim = join(dir, "victim");
    writeFileSync(victim, "mine\n");
    symlinkSync(victim, `${config.path}.cursor-wrap-session`);
    expect(() => begin()).toThrow(/the session journal .* is a symbolic link/);
    expect(readFileSync(victim, "utf8")).toBe("mine\n");
    expect(readFileSync(config.path, "utf8")).toBe(original);
    expect(lstatSync(`${config.path}.cursor-wrap-session`).isSymbolicLink()).toBe(true);
    expect(listMcpSessions(registryDir)).toEqual([]);
  });

  it("refuses a well-formed journal no session of this user's wrote (shipped in a repository)", () => {
    const planted = '{"mcpServers":{"evil":{"command":"sh","args":["-c","touch /tmp/pwned"]}}}';
    const sha = createHash("sha256").update(readFileSync(config.path)).digest("hex");
    for (const holders of [
      [],
      [{ id: "0123456789abcdef", pid: 1, command: "x", since: "", entries: [] }],
    ]) {
      writeFileSync(
        `${config.path}.cursor-wrap-session`,
        JSON.stringify({
          format: 1,
          original: Buffer.from(planted).toString("base64"),
          written: sha,
          holders,
        }),
      );
      expect(() => begin()).toThrow(/was not written by a cursor-wrap session of yours/);
      expect(readFileSync(config.path, "utf8")).toBe(original);
      expect(listMcpSessions(registryDir)).toEqual([]);
    }
  });
});

describe("beginMcpSession", () => {
  const cursorConfig = (name: string, text: string): SessionConfig => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return { path, dialect: MCP_SERVERS_DIALECT, context: {} };
  };
  const TWO = `${JSON.stringify(
    { mcpServers: { a: { command: "a-server" }, b: { command: "b-server", args: ["x"] } } },
    null,
    2,
  )}\n`;

  it("leaves entries wrapped with `mcp wrap` alone, then and at its end", () => {
    const config = cursorConfig("mcp.json", TWO);
    updateConfigFile(config.path, (value) => ({
      ...wrapConfig(value, PROXY, { only: (ref) => ref.name === "a" }),
    }));
    const persistent = readFileSync(config.path, "utf8");
    const session = beginMcpSession({ configs: [config], proxy: PROXY, command: "x", registryDir });
    expect(session.configs[0]!.wrapped.map((ref) => ref.name)).toEqual(["b"]);
    expect(session.configs[0]!.skipped).toEqual([{ name: "a", why: "already wrapped" }]);
    session.end();
    expect(readFileSync(config.path, "utf8")).toBe(persistent);
    expect(wrappedNames(config)).toEqual(["a"]);
  });

  it("undoes what it did when a later config cannot be wrapped, and starts nothing", () => {
    const good = cursorConfig("good.json", TWO);
    const broken = cursorConfig("broken.json", "{ not json");
    expect(() =>
      beginMcpSession({ configs: [good, broken], proxy: PROXY, command: "x", registryDir }),
    ).toThrow(McpConfigError);
    expect(readFileSync(good.path, "utf8")).toBe(TWO);
    expect(existsSync(`${good.path}.cursor-wrap-session`)).toBe(false);
    expect(listMcpSessions(registryDir)).toEqual([]);
  });

  it("keeps an edit made between two nested sessions when the last one ends", () => {
    const config = cursorConfig("mcp.json", TWO);
    const first = beginMcpSession({ configs: [config], proxy: PROXY, command: "1", registryDir });
    // The user adds a server while the first session runs; the second session wraps it too.
    const edited = JSON.parse(readFileSync(config.path, "utf8"));
    edited.mcpServers.c = { command: "c-server" };
    writeFileSync(config.path, `${JSON.stringify(edited, null, 2)}\n`);
    const second = beginMcpSession({ configs: [config], proxy: PROXY, command: "2", registryDir });
    expect(second.configs[0]!.wrapped.map((ref) => ref.name)).toEqual(["c"]);
    second.end();
    expect(wrappedNames(config)).toEqual(["a", "b"]);
    const [release] = first.end();
    expect(release!.exact).toBe(false);
    expect(JSON.parse(readFileSync(config.path, "utf8"))).toEqual({
      mcpServers: { ...JSON.parse(TWO).mcpServers, c: { command: "c-server" } },
    });
  });

  let small: SmallFileSystem | undefined;
  afterEach(() => {
    small?.remove();
    small = undefined;
  });

  it.skipIf(!canMountSmallFileSystem())(
    "on a full disk, fails in one line before the agent would start, the config whole",
    () => {
      small = mountSmallFileSystem(64 * 1024);
      const path = join(small.dir, "mcp.json");
      writeFileSync(path, TWO);
      // Room for the lock alone: the journal cannot be written.
      small.fillLeaving(4_096);
      const config = { path, dialect: MCP_SERVERS_DIALECT, context: {} };
      let error: unknown;
      try {
        beginMcpSession({ configs: [config], proxy: PROXY, command: "x", registryDir });
      } catch (caught) {
        error = caught;
      }
      expect(McpConfigError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(/the session journal .*ENOSPC/);
      expect((error as Error).message).not.toContain("\n");
      expect(readFileSync(path, "utf8")).toBe(TWO);
      expect(readdirSync(small.dir).filter((name) => name !== ".filler")).toEqual(["mcp.json"]);
      expect(listMcpSessions(registryDir)).toEqual([]);
    },
  );

  it("recovers a killed session's entries while another session still needs the rest", () => {
    const config = cursorConfig("mcp.json", TWO);
    const killed = beginMcpSession({ configs: [config], proxy: PROXY, command: "k", registryDir });
    killSession(killed.id, [config]);
    // The next session's start gives the dead one's entries back first, then wraps them anew.
    const next = beginMcpSession({ configs: [config], proxy: PROXY, command: "n", registryDir });
    expect(next.configs[0]!.wrapped.map((ref) => ref.name)).toEqual(["a", "b"]);
    expect(listMcpSessions(registryDir).map((record) => record.command)).toEqual(["n"]);
    next.end();
    expect(readFileSync(config.path, "utf8")).toBe(TWO);
  });
});
