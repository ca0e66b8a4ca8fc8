import { spawnSync } from "node:child_process";
import {
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
import { CLIENT_FIXTURES, fixtureText } from "./__fixtures__/client-fixtures.js";
import { clientConfigFiles, configFileFor, detectClient } from "./client-configs.js";
import { type RewriteScope, serverStatuses, unwrapConfig, wrapConfig } from "./config.js";
import type { ClientName } from "./config-dialects.js";
import { McpConfigError } from "./config-error.js";
import { updateConfigFile } from "./config-file.js";
import { applyJsonEdits, commentsOf, parseJsonText } from "./json-text.js";

const PROXY = {
  command: "/usr/local/bin/node",
  prefix: ["/opt/cursor-wrap/bin/cursor-wrap.js", "mcp", "proxy"],
};

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "mcp-clients-test-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

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

const leftovers = (directory: string, known: string[]): string[] =>
  readdirSync(directory).filter((name) => !known.includes(name) && name !== ".filler");

describe.each(CLIENT_FIXTURES)("$name", (fixture) => {
  const scope: RewriteScope = {
    dialect: fixture.dialect,
    context: fixture.project === undefined ? {} : { project: fixture.project },
  };
  const syntax = fixture.dialect;
  const wrap = (config: unknown) => wrapConfig(config, PROXY, scope);
  const unwrap = (config: unknown) => unwrapConfig(config, scope);
  const options = { syntax };
  const original = fixtureText(fixture.file);
  const place = (): string => {
    const path = join(dir, fixture.file);
    writeFileSync(path, original);
    return path;
  };

  it("lists every server: stdio, remote, and those it cannot run", () => {
    const statuses = serverStatuses(parseJsonText(original, syntax), scope);
    const names = (transport: string) =>
      statuses.filter((status) => status.transport === transport).map((status) => status.name);
    expect(names("stdio")).toEqual(fixture.stdio);
    expect(names("remote")).toEqual(fixture.remote);
    expect(names("unknown")).toEqual(fixture.unknown);
    expect(statuses.every((status) => !status.wrapped)).toBe(true);
  });

  it("wraps every stdio server, leaves the rest, and keeps every other byte, comment and reference", () => {
    const path = place();
    const update = updateConfigFile(path, wrap, options);
    expect(update.changed).toEqual(fixture.stdio);
    const after = readFileSync(path, "utf8");
    expect(readFileSync(`${path}.cursor-wrap-backup`, "utf8")).toBe(original);
    // Still the client's syntax, with the same comments, and every reference as written.
    const wrapped = serverStatuses(parseJsonText(after, syntax), scope);
    expect(wrapped.filter((status) => status.wrapped).map((status) => status.name)).toEqual(
      fixture.stdio,
    );
    expect(commentsOf(after)).toEqual(commentsOf(original));
    for (const text of fixture.kept) expect(after).toContain(text);
    // The servers' own commands, now after the proxy's `--`, as they were.
    const before = serverStatuses(parseJsonText(original, syntax), scope);
    for (const status of wrapped.filter((item) => item.transport === "stdio")) {
      const was = before.find((item) => item.name === status.name)!;
      expect([status.command, ...(status.args ?? [])]).toEqual([was.command, ...(was.args ?? [])]);
    }
    // Only the touched entries changed: each line outside them is still there.
    const untouched = original
      .split("\n")
      .filter((line) => !/"(command|args|path)"/.test(line) && !/^\s*"[^"]*",?$/.test(line));
    for (const line of untouched) expect(after).toContain(line.trim());
  });

  it("never wraps twice, and unwraps to the original bytes", () => {
    const path = place();
    updateConfigFile(path, wrap, options);
    const again = updateConfigFile(path, wrap, options);
    expect(again.changed).toEqual([]);
    expect(again.skipped.filter((item) => item.why === "already wrapped")).toHaveLength(
      fixture.stdio.length,
    );
    const back = updateConfigFile(path, unwrap, { ...options, restoreExactly: true });
    expect(back.changed).toEqual(fixture.stdio);
    expect(back.restoredFromBackup).toBe(true);
    expect(readFileSync(path, "utf8")).toBe(original);
  });

  it("keeps an edit made while wrapped: only the wrapped entries are unwrapped", () => {
    const path = place();
    updateConfigFile(path, wrap, options);
    // The user (or the client) edits the file meanwhile: a new top-level key, and for JSON
    // with comments a new comment too.
    const wrappedText = readFileSync(path, "utf8");
    let edited = applyJsonEdits(wrappedText, [{ path: ["addedWhileWrapped"], value: true }]);
    if (syntax.comments) edited = edited.replace("{", "{\n  // added while wrapped");
    writeFileSync(path, edited);
    const back = updateConfigFile(path, unwrap, { ...options, restoreExactly: true });
    expect(back.restoredFromBackup).toBeUndefined();
    const after = readFileSync(path, "utf8");
    expect(after).toContain('"addedWhileWrapped": true');
    if (syntax.comments) expect(after).toContain("// added while wrapped");
    const restored = parseJsonText(after, syntax) as Record<string, unknown>;
    const { addedWhileWrapped, ...rest } = restored;
    expect(addedWhileWrapped).toBe(true);
    expect(JSON.stringify(rest)).toBe(JSON.stringify(parseJsonText(original, syntax)));
  });

  it("changes nothing with dryRun, and says what would change", () => {
    const path = place();
    const update = updateConfigFile(path, wrap, { ...options, dryRun: true });
    expect(update.after).not.toBe(update.before);
    expect(update.changed).toEqual(fixture.stdio);
    expect(readFileSync(path, "utf8")).toBe(original);
    expect(readdirSync(dir)).toEqual([fixture.file]);
  });

  it("wraps and unwraps servers named like flags, prototypes or escape sequences", () => {
    const names = ["__proto__", "--", "-h", "a\u001b]0;owned\u0007b"];
    const [map] = fixture.dialect.serverMaps(parseJsonText(original, syntax), scope.context!);
    const text = applyJsonEdits(
      original,
      names.map((name, index) => ({
        path: [...map!.path, name],
        value: { command: `srv${index}`, args: ["--"] },
      })),
    );
    const path = join(dir, fixture.file);
    writeFileSync(path, text);
    const update = updateConfigFile(path, wrap, options);
    expect([...update.changed].sort()).toEqual([...fixture.stdio, ...names].sort());
    const statuses = serverStatuses(parseJsonText(readFileSync(path, "utf8"), syntax), scope);
    for (const [index, name] of names.entries()) {
      const status = statuses.find((item) => item.name === name)!;
      expect(status.wrapped).toBe(true);
      expect([status.command, ...status.args!]).toEqual([`srv${index}`, "--"]);
    }
    updateConfigFile(path, unwrap, { ...options, restoreExactly: true });
    expect(readFileSync(path, "utf8")).toBe(text);
  });

  describe("hardening", () => {
    const VICTIM = '{"mcpServers":{"mine":{"command":"my-own-server"}}}\n';
    let victim: string;
    beforeEach(() => {
      victim = join(dir, "victim.json");
      writeFileSync(victim, VICTIM);
    });

    it("refuses planted links at the backup and the lock, and never follows them", () => {
      const path = place();
      for (const side of ["backup", "lock"]) {
        const planted = `${path}.cursor-wrap-${side}`;
        symlinkSync(victim, planted);
        expect(failure(() => updateConfigFile(path, wrap, options)).message).toContain(
          "is a symbolic link",
        );
        expect(readFileSync(victim, "utf8")).toBe(VICTIM);
        expect(readFileSync(path, "utf8")).toBe(original);
        expect(lstatSync(planted).isSymbolicLink()).toBe(true);
        rmSync(planted);
      }
    });

    it("refuses a FIFO or a directory at the lock or the backup, without blocking", () => {
      const path = place();
      for (const side of ["lock", "backup"]) {
        const planted = `${path}.cursor-wrap-${side}`;
        expect(spawnSync("mkfifo", [planted]).status).toBe(0);
        expect(failure(() => updateConfigFile(path, wrap, options)).message).toMatch(/FIFO/);
        rmSync(planted);
        mkdirSync(planted);
        expect(failure(() => updateConfigFile(path, wrap, options)).message).toMatch(
          /is a directory/,
        );
        rmSync(planted, { recursive: true });
      }
      expect(readFileSync(path, "utf8")).toBe(original);
    });

    it("changes a config that is a link at its target and keeps the link", () => {
      const real = join(dir, `dotfiles-${fixture.file}`);
      writeFileSync(real, original);
      const path = join(dir, fixture.file);
      symlinkSync(real, path);
      const update = updateConfigFile(path, wrap, options);
      expect(update.target).toBe(real);
      expect(lstatSync(path).isSymbolicLink()).toBe(true);
      expect(readFileSync(`${real}.cursor-wrap-backup`, "utf8")).toBe(original);
      expect(existsSync(`${path}.cursor-wrap-backup`)).toBe(false);
    });

    it("refuses while a live cursor-wrap holds the lock", () => {
      const path = place();
      const stat = readFileSync(`/proc/${process.ppid}/stat`, "latin1");
      const startTime = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
      writeFileSync(`${path}.cursor-wrap-lock`, `${process.ppid} ${startTime}\n`);
      expect(failure(() => updateConfigFile(path, wrap, options)).message).toMatch(
        /another cursor-wrap/,
      );
      expect(readFileSync(path, "utf8")).toBe(original);
    });

    it("says clearly when the file does not parse the way its client reads it", () => {
      const path = join(dir, fixture.file);
      writeFileSync(path, `${original.slice(0, original.lastIndexOf("}"))}`);
      expect(failure(() => updateConfigFile(path, wrap, options)).message).toMatch(
        /not valid JSON/,
      );
    });

    let small: SmallFileSystem | undefined;
    afterEach(() => {
      small?.remove();
      small = undefined;
    });

    it.skipIf(!canMountSmallFileSystem())(
      "fails in one line and leaves the config whole on a full disk",
      () => {
        small = mountSmallFileSystem(64 * 1024);
        const path = join(small.dir, fixture.file);
        writeFileSync(path, original);
        // Room for the lock alone: the backup cannot be written.
        small.fillLeaving(4_096);
        const error = failure(() => updateConfigFile(path, wrap, options));
        expect(error.message).toMatch(/ENOSPC \(no space left on device\); nothing was changed/);
        expect(readFileSync(path, "utf8")).toBe(original);
        expect(leftovers(small.dir, [fixture.file])).toEqual([]);
      },
    );
  });
});

describe("clientConfigFiles", () => {
  const locations = { home: "/home/me", project: "/work/app", platform: "linux" as const };
  const paths = (client: ClientName, extra = {}) =>
    clientConfigFiles(client, { ...locations, ...extra }).map((file) => [
      file.path,
      file.dialect.id,
      file.scope,
    ]);

  it("knows every client's user and project files (seed F-002)", () => {
    expect(paths("cursor")).toEqual([
      ["/home/me/.cursor/mcp.json", "mcp-servers", "user"],
      ["/work/app/.cursor/mcp.json", "mcp-servers", "project"],
    ]);
    expect(paths("claude-code")).toEqual([
      ["/home/me/.claude.json", "claude-code-user", "user"],
      ["/work/app/.mcp.json", "mcp-servers", "project"],
    ]);
    expect(paths("claude-desktop")).toEqual([
      ["/home/me/.config/Claude/claude_desktop_config.json", "mcp-servers", "user"],
    ]);
    expect(paths("claude-desktop", { platform: "darwin" })).toEqual([
      [
        "/home/me/Library/Application Support/Claude/claude_desktop_config.json",
        "mcp-servers",
        "user",
      ],
    ]);
    expect(paths("vscode")).toEqual([
      ["/home/me/.config/Code/User/mcp.json", "vscode", "user"],
      ["/home/me/.config/Code - Insiders/User/mcp.json", "vscode", "user"],
      ["/work/app/.vscode/mcp.json", "vscode", "project"],
    ]);
    expect(paths("windsurf")).toEqual([
      ["/home/me/.codeium/windsurf/mcp_config.json", "mcp-servers", "user"],
    ]);
    expect(paths("zed", { env: { XDG_CONFIG_HOME: "/xdg" } })).toEqual([
      ["/xdg/zed/settings.json", "zed", "user"],
      ["/work/app/.zed/settings.json", "zed", "project"],
    ]);
    // The project context reaches the file with per-project maps.
    expect(clientConfigFiles("claude-code", locations)[0]!.context).toEqual({
      project: "/work/app",
    });
  });

  it("reads a --config file in the dialect its client or its name says", () => {
    expect(configFileFor("/x/.claude.json", undefined, {}).dialect.id).toBe("claude-code-user");
    expect(configFileFor("/p/.vscode/mcp.json", undefined, {}).dialect.id).toBe("vscode");
    expect(configFileFor("/h/.config/zed/settings.json", undefined, {}).dialect.id).toBe("zed");
    expect(configFileFor("/anywhere/servers.json", "zed", {}).dialect.id).toBe("zed");
    expect(configFileFor("/anywhere/mcp.json", undefined, {}).client).toBe("cursor");
    expect(configFileFor("/a/mcp_config.json", undefined, {}).client).toBe("windsurf");
  });
});

describe("detectClient", () => {
  it("tells the client from the command (seed F-001), or not at all", () => {
    expect(detectClient("claude")).toBe("claude-code");
    expect(detectClient("/usr/local/bin/claude-code")).toBe("claude-code");
    expect(detectClient("/Applications/Claude.app/Contents/MacOS/Claude")).toBe("claude-desktop");
    expect(detectClient("cursor")).toBe("cursor");
    expect(detectClient("/home/me/.local/bin/cursor-agent")).toBe("cursor");
    expect(detectClient("code")).toBe("vscode");
    expect(detectClient("code-insiders")).toBe("vscode");
    expect(detectClient("windsurf")).toBe("windsurf");
    expect(detectClient("zed")).toBe("zed");
    expect(detectClient("npx")).toBeUndefined();
    expect(detectClient("constructor")).toBeUndefined();
    expect(detectClient("__proto__")).toBeUndefined();
  });
});
