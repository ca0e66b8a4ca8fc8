import { describe, expect, it } from "vitest";
import { isWrapped, serverStatuses, unwrapConfig, wrapConfig } from "./config.js";
import { ZED_DIALECT } from "./config-dialects.js";

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
        "--server-id=github",
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

  it("leaves an entry whose args are not a list of strings as written, and says why", () => {
    // Wrapping would have written them back as strings: `unwrap` could not restore them.
    const odd = {
      text: { command: "srv", args: "--port 8080" },
      number: { command: "srv", args: ["--port", 8080] },
      empty: { command: "srv", args: null },
      object: { command: "srv", args: { port: 8080 } },
    };
    const config = { mcpServers: { ...odd, plain: { command: "srv", args: ["--port", "8080"] } } };
    const { config: wrapped, changed, skipped } = wrapConfig(config, PROXY);
    expect(changed).toEqual(["plain"]);
    expect(skipped.map((item) => item.name)).toEqual(Object.keys(odd));
    for (const item of skipped) expect(item.why).toMatch(/args are not a list of strings/);
    const servers = (wrapped as typeof config).mcpServers;
    for (const name of Object.keys(odd) as Array<keyof typeof odd>) {
      expect(JSON.stringify(servers[name])).toBe(JSON.stringify(odd[name]));
    }
    expect(JSON.stringify(unwrapConfig(wrapped).config)).toBe(JSON.stringify(config));
    expect(
      serverStatuses(config)
        .filter((status) => status.name !== "plain")
        .map((status) => status.transport),
    ).toEqual(["unknown", "unknown", "unknown", "unknown"]);
    // Zed's older form keeps its args under `command`: the same rule.
    const zed = { context_servers: { old: { command: { path: "srv", args: [1, null] } } } };
    const zedWrap = wrapConfig(zed, PROXY, { dialect: ZED_DIALECT });
    expect(zedWrap.changed).toEqual([]);
    expect(JSON.stringify(zedWrap.config)).toBe(JSON.stringify(zed));
  });

  it("leaves an entry with an empty command as written (it starts nothing), and says why", () => {
    const config = {
      mcpServers: {
        blank: { command: "", args: [] },
        spaces: { command: "  " },
        ok: { command: "srv" },
      },
    };
    const { changed, skipped } = wrapConfig(config, PROXY);
    expect(changed).toEqual(["ok"]);
    expect(skipped).toEqual([
      { name: "blank", why: "an empty command" },
      { name: "spaces", why: "an empty command" },
    ]);
    const zed = { context_servers: { old: { command: { path: "", args: [] } } } };
    expect(wrapConfig(zed, PROXY, { dialect: ZED_DIALECT }).changed).toEqual([]);
  });

  it("wraps and unwraps servers named like flags, prototypes or escape sequences, each as one argument", () => {
    const names = ["__proto__", "--", "-h", "constructor", "a\u001b]0;owned\u0007b", "x y"];
    const text = `{"mcpServers":{${names
      .map((name, index) => `${JSON.stringify(name)}:{"command":"srv${index}","args":["--"]}`)
      .join(",")}}}`;
    const config = JSON.parse(text) as { mcpServers: Record<string, unknown> };
    expect(Object.keys(config.mcpServers)).toEqual(names);
    const wrapped = wrapConfig(config, PROXY);
    expect(wrapped.changed).toEqual(names);
    const servers = (wrapped.config as typeof config).mcpServers;
    // Own keys, every one of them: `__proto__` did not become the object's prototype.
    expect(Object.keys(servers)).toEqual(names);
    for (const [index, name] of names.entries()) {
      const entry = servers[name] as { args: string[] };
      const separator = entry.args.indexOf("--");
      // The name is one argument, before the separator, so no proxy option parser sees it as a flag.
      expect(entry.args.slice(0, separator)).toEqual([...PROXY.prefix, `--server-id=${name}`]);
      expect(entry.args.slice(separator + 1)).toEqual([`srv${index}`, "--"]);
    }
    expect(serverStatuses(wrapped.config).map((status) => [status.name, status.wrapped])).toEqual(
      names.map((name) => [name, true]),
    );
    const back = unwrapConfig(wrapped.config);
    expect(back.changed).toEqual(names);
    expect(JSON.stringify(back.config)).toBe(JSON.stringify(config));
  });

  it("lists servers and whether each is wrapped", () => {
    expect(serverStatuses(wrapConfig(CONFIG, PROXY).config)).toEqual([
      {
        name: "github",
        transport: "stdio",
        wrapped: true,
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-github"],
        map: ["mcpServers"],
      },
      {
        name: "bare",
        transport: "stdio",
        wrapped: true,
        command: "/usr/bin/my-server",
        args: [],
        map: ["mcpServers"],
      },
      {
        name: "remote",
        transport: "remote",
        wrapped: false,
        url: "https://mcp.example.com/sse",
        map: ["mcpServers"],
      },
    ]);
  });
});
