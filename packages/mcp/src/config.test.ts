import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  isWrapped,
  McpConfigError,
  serverStatuses,
  unwrapConfig,
  updateConfigFile,
  wrapConfig,
} from "./config.js";

const PROXY = {
  command: "/usr/local/bin/node",
  prefix: ["/opt/cursor-wrap/bin/cursor-wrap.js", "mcp", "proxy"],
};

const CONFIG = {
  mcpServers: {
    github: {
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-github"],
      env: { GITHUB_TOKEN: "ghp_x" },
      disabled: false,
    },
    bare: { command: "/usr/bin/my-server" },
    remote: { url: "https://mcp.example.com/sse", headers: { Authorization: "Bearer x" } },
  },
  someOtherKey: { kept: true },
};

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "mcp-config-test-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("wrapConfig and unwrapConfig", () => {
  it("runs each stdio server through the proxy and leaves env, remote servers and other keys alone", () => {
    const { config, changed, skipped } = wrapConfig(CONFIG, PROXY);
    expect(changed).toEqual(["github", "bare"]);
    expect(skipped).toEqual([{ name: "remote", why: "a remote (url) server" }]);
    const servers = (config as typeof CONFIG).mcpServers;
    expect(servers.github).toEqual({
      command: "/usr/local/bin/node",
      args: [
        "/opt/cursor-wrap/bin/cursor-wrap.js",
        "mcp",
        "proxy",
        "--server-id",
        "github",
        "--",
        "npx",
        "-y",
        "@modelcontextprotocol/server-github",
      ],
      env: { GITHUB_TOKEN: "ghp_x" },
      disabled: false,
    });
    expect(servers.remote).toEqual(CONFIG.mcpServers.remote);
    expect((config as typeof CONFIG).someOtherKey).toEqual({ kept: true });
    expect(isWrapped(servers.github)).toBe(true);
  });

  it("never wraps twice, and unwraps each entry exactly, without args where there were none", () => {
    const once = wrapConfig(CONFIG, PROXY).config;
    const twice = wrapConfig(once, PROXY);
    expect(twice.changed).toEqual([]);
    expect(twice.skipped.map((item) => item.why)).toEqual([
      "already wrapped",
      "already wrapped",
      "a remote (url) server",
    ]);
    // Another entry edited meanwhile: its edit stays, the wrapped ones come back as they were.
    const edited = structuredClone(once) as typeof CONFIG;
    (edited.mcpServers.github.env as Record<string, string>).EXTRA = "1";
    const back = unwrapConfig(edited);
    expect(back.changed).toEqual(["github", "bare"]);
    expect((back.config as typeof CONFIG).mcpServers).toEqual({
      ...CONFIG.mcpServers,
      github: { ...CONFIG.mcpServers.github, env: { GITHUB_TOKEN: "ghp_x", EXTRA: "1" } },
    });
    expect(Object.hasOwn((back.config as typeof CONFIG).mcpServers.bare, "args")).toBe(false);
  });

  it("property-like: wrap then unwrap gives the original back, byte for byte, for every entry shape", () => {
    for (const entry of [
      { command: "a" },
      { command: "a", args: [] },
      { command: "a", args: ["--", "mcp", "proxy"] },
      { command: "python3", args: ["-m", "srv", "--flag=x"], env: {}, type: "stdio" },
    ]) {
      const config = { mcpServers: { s: entry } };
      const wrapped = wrapConfig(config, PROXY).config;
      expect(JSON.stringify(unwrapConfig(wrapped).config)).toBe(JSON.stringify(config));
    }
  });

  it("lists servers and whether each is wrapped", () => {
    expect(serverStatuses(wrapConfig(CONFIG, PROXY).config)).toEqual([
      {
        name: "github",
        transport: "stdio",
        wrapped: true,
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-github"],
      },
      { name: "bare", transport: "stdio", wrapped: true, command: "/usr/bin/my-server", args: [] },
      { name: "remote", transport: "remote", wrapped: false, url: "https://mcp.example.com/sse" },
    ]);
  });
});

describe("updateConfigFile", () => {
  it("writes a verified backup and replaces the file atomically, keeping its indentation", () => {
    const path = join(dir, "mcp.json");
    const original = `${JSON.stringify(CONFIG, null, 4)}\n`;
    writeFileSync(path, original);
    const update = updateConfigFile(path, (config) => wrapConfig(config, PROXY));
    expect(update.changed).toEqual(["github", "bare"]);
    expect(readFileSync(update.backup!, "utf8")).toBe(original);
    const written = readFileSync(path, "utf8");
    expect(written).toContain('\n    "mcpServers"');
    // Unwrapping gives the original text back.
    updateConfigFile(path, unwrapConfig);
    expect(readFileSync(path, "utf8")).toBe(original);
  });

  it("changes nothing with dryRun, and says what would change", () => {
    const path = join(dir, "mcp.json");
    writeFileSync(path, JSON.stringify(CONFIG));
    const update = updateConfigFile(path, (config) => wrapConfig(config, PROXY), { dryRun: true });
    expect(update.after).not.toBe(update.before);
    expect(readFileSync(path, "utf8")).toBe(JSON.stringify(CONFIG));
    expect(update.backup).toBeUndefined();
  });

  it("refuses while another process holds the lock, and takes over a stale one", () => {
    const path = join(dir, "mcp.json");
    writeFileSync(path, JSON.stringify(CONFIG));
    writeFileSync(`${path}.cursor-wrap-lock`, `${process.ppid}\n`);
    expect(() => updateConfigFile(path, unwrapConfig)).toThrow(McpConfigError);
    writeFileSync(`${path}.cursor-wrap-lock`, "999999999\n");
    expect(updateConfigFile(path, (config) => wrapConfig(config, PROXY)).changed).toHaveLength(2);
  });

  it("says clearly when the file is missing or not JSON", () => {
    expect(() => updateConfigFile(join(dir, "none.json"), unwrapConfig)).toThrow(/no such file/);
    writeFileSync(join(dir, "bad.json"), "{ nope");
    expect(() => updateConfigFile(join(dir, "bad.json"), unwrapConfig)).toThrow(/not valid JSON/);
  });
});
