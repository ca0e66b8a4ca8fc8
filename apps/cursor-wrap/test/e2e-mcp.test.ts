// The MCP watchdog against software nobody here wrote: the official TypeScript SDK's client over
// its stdio transport, and the reference server `@modelcontextprotocol/server-everything`.
// Everything that works directly works through `cursor-wrap mcp proxy`; a hung call becomes an
// error the client recovers from.

import { spawn, spawnSync } from "node:child_process";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  canMountSmallFileSystem,
  fakeMcpServerBin,
  isAlive,
  mountSmallFileSystem,
  readPids,
} from "@cursor-wrap/testkit";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  CreateMessageRequestSchema,
  ListRootsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, logFiles, run } from "./harness.js";
import { runInProcess } from "./in-process.js";

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  require.resolve("@modelcontextprotocol/server-everything/package.json"),
  "..",
  "dist",
  "index.js",
);

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
});

/** An SDK client on `command`, with sampling and roots, as Cursor's agent would connect. */
async function connect(command: string, args: string[], env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command,
    args,
    stderr: "pipe",
    env: { ...(process.env as Record<string, string>), ...env },
  });
  const errors: Error[] = [];
  const client = new Client(
    { name: "cursor-wrap-test", version: "1.0.0" },
    { capabilities: { sampling: {}, roots: { listChanged: true } } },
  );
  client.onerror = (error) => errors.push(error);
  // What the client reads of the server's stderr (its log, as an editor shows it).
  const stderr: Buffer[] = [];
  transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
    model: "test-model",
    role: "assistant",
    content: {
      type: "text",
      text: `sampled: ${JSON.stringify(request.params.messages.at(-1)?.content)}`,
    },
  }));
  client.setRequestHandler(ListRootsRequestSchema, async () => ({
    roots: [{ uri: "file:///work/project", name: "project" }],
  }));
  await client.connect(transport);
  clients.push(client);
  return { client, errors, transport, stderr: () => Buffer.concat(stderr).toString("utf8") };
}

const proxied = (logDir: string, serverId: string, extra: string[], server: string[]) => ({
  command: process.execPath,
  args: [
    CLI,
    "mcp",
    "proxy",
    "--server-id",
    serverId,
    "--log-dir",
    logDir,
    ...extra,
    "--",
    ...server,
  ],
});

/** Everything a client does with the reference server, results as plain data. */
async function exercise(client: Client) {
  const progress: number[] = [];
  const results = {
    server: client.getServerVersion(),
    capabilities: client.getServerCapabilities(),
    tools: (await client.listTools()).tools.map((tool) => tool.name).sort(),
    echo: await client.callTool({ name: "echo", arguments: { message: "héllo\nworld" } }),
    sum: await client.callTool({ name: "get-sum", arguments: { a: 2, b: 40 } }),
    resources: (await client.listResources()).resources.map((resource) => resource.uri).sort(),
    prompts: (await client.listPrompts()).prompts.map((prompt) => prompt.name).sort(),
    prompt: await client.getPrompt({
      name: "args-prompt",
      arguments: { city: "Oslo", state: "Norway" },
    }),
    longRunning: await client.callTool(
      { name: "trigger-long-running-operation", arguments: { duration: 1, steps: 3 } },
      undefined,
      { onprogress: (update) => progress.push(update.progress) },
    ),
    sampling: await client.callTool({
      name: "trigger-sampling-request",
      arguments: { prompt: "say hi", maxTokens: 20 },
    }),
    roots: await client.callTool({ name: "get-roots-list", arguments: {} }),
  };
  const firstResource = results.resources[0]!;
  return { ...results, progress, read: await client.readResource({ uri: firstResource }) };
}

describe("cursor-wrap mcp proxy with the official SDK and the reference server", () => {
  it("gives the client everything the server gives it directly: tools, resources, prompts, progress, sampling, roots", async () => {
    const logDir = mkdtempSync(join(tmpdir(), "mcp-e2e-"));
    const direct = await connect(process.execPath, [EVERYTHING, "stdio"]);
    const viaProxy = await connect(
      ...(Object.values(
        proxied(logDir, "everything", [], [process.execPath, EVERYTHING, "stdio"]),
      ) as [string, string[]]),
    );
    const [expected, actual] = [await exercise(direct.client), await exercise(viaProxy.client)];
    // How many progress updates arrive before the result is the server's timing, either way.
    const { progress: progressDirect, ...expectedResults } = expected;
    const { progress, ...actualResults } = actual;
    expect(actualResults).toEqual(expectedResults);
    expect(progressDirect.length).toBeGreaterThan(0);
    expect(progress.length).toBeGreaterThan(0);
    expect(JSON.stringify(actualResults.sampling)).toContain("sampled:");
    expect(JSON.stringify(actualResults.roots)).toContain("file:///work/project");
    // The reference server may send its last progress notification after the result, which
    // the SDK reports directly too: that is the server's doing, not the proxy's.
    const real = (errors: Error[]) =>
      errors.filter((error) => !/progress notification for an unknown token/.test(error.message));
    expect(real(viaProxy.errors)).toEqual([]);
    // The server's stderr reaches the client as it does directly.
    expect(direct.stderr()).toContain("Starting default (STDIO) server...\n");
    expect(viaProxy.stderr()).toBe(direct.stderr());
    await viaProxy.client.close();
    // Every message is in the proxy's log, with its method and latency.
    const [log] = readdirSync(logDir).filter((name) => name.startsWith("cursor-wrap-mcp-"));
    const records = readFileSync(join(logDir, log!), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const calls = records.filter(
      (record) =>
        record.msg === "mcp_message" &&
        record.kind === "response" &&
        record.method === "tools/call",
    );
    expect(calls.length).toBe(5);
    expect(calls.every((record) => typeof record.latency_ms === "number")).toBe(true);
    expect(
      records.some(
        (record) => record.msg === "mcp_message" && record.method === "sampling/createMessage",
      ),
    ).toBe(true);
    // And what the server said on stderr, line by line.
    expect(records).toContainEqual(
      expect.objectContaining({
        msg: "server_stderr",
        raw_text: "Starting default (STDIO) server...",
      }),
    );
  });
});

describe("cursor-wrap mcp proxy with misbehaving servers", () => {
  const fake = (logDir: string, extra: string[], serverOptions: string[] = []) =>
    proxied(logDir, "fake", extra, [process.execPath, fakeMcpServerBin, ...serverOptions]);

  it("turns a hung tool call into an error the client recovers from, and the session goes on", async () => {
    const logDir = mkdtempSync(join(tmpdir(), "mcp-e2e-"));
    const { command, args } = fake(logDir, ["--tool-timeout", "hang=500ms"]);
    const { client } = await connect(command, args);
    const started = performance.now();
    await expect(client.callTool({ name: "hang", arguments: {} })).rejects.toMatchObject({
      code: -32001,
      message: expect.stringContaining(
        'MCP server "fake" did not answer tools/call "hang" within 500ms',
      ),
    });
    expect(performance.now() - started).toBeGreaterThanOrEqual(450);
    const echo = await client.callTool({ name: "echo", arguments: { text: "still working" } });
    expect(echo.content).toEqual([{ type: "text", text: "still working" }]);
  });

  it("refuses an empty server command in one line, as a usage error, without a stack", async () => {
    const result = await run(["mcp", "proxy", "--", ""], { defaults: false });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^cursor-wrap: mcp proxy needs the server's command after --/);
    expect(result.stderr).not.toContain("    at ");
  });

  it("hides a server's banner from the client (which would otherwise see a parse error)", async () => {
    const logDir = mkdtempSync(join(tmpdir(), "mcp-e2e-"));
    const { command, args } = fake(logDir, [], ["--banner"]);
    const { client, errors } = await connect(command, args);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  });

  it("answers at once when the server crashes mid-call, then ends", async () => {
    const logDir = mkdtempSync(join(tmpdir(), "mcp-e2e-"));
    const { command, args } = fake(logDir, []);
    const { client } = await connect(command, args);
    await expect(client.callTool({ name: "crash", arguments: {} })).rejects.toMatchObject({
      code: -32000,
      message: expect.stringContaining("exited with code 3"),
    });
  });

  it("shuts down a server that ignores its stdin and SIGTERM on a SIGTERM, leaving nothing behind", async () => {
    const logDir = mkdtempSync(join(tmpdir(), "mcp-e2e-"));
    const pidFile = join(logDir, "server.jsonl");
    const child = spawn(
      process.execPath,
      [
        CLI,
        "mcp",
        "proxy",
        "--log-dir",
        logDir,
        "--",
        process.execPath,
        fakeMcpServerBin,
        "--keep-running",
        "--ignore-sigterm",
        "--record",
        pidFile,
      ],
      {
        stdio: ["pipe", "pipe", "inherit"],
      },
    );
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" })}\n`);
    await new Promise((resolve) => child.stdout.once("data", resolve));
    const records = () =>
      readFileSync(
        join(logDir, readdirSync(logDir).find((name) => name.startsWith("cursor-wrap-mcp-"))!),
        "utf8",
      );
    const serverPid = Number(
      /"msg":"mcp_server_started"/.test(records())
        ? /"pid":(\d+),"msg":"mcp_server_started"/.exec(records())?.[1]
        : Number.NaN,
    );
    expect(isAlive(serverPid)).toBe(true);
    child.kill("SIGTERM");
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(code).toBe(0);
    expect(isAlive(serverPid)).toBe(false);
    expect(records()).toContain('"step":"SIGTERM"');
  });
});

describe("cursor-wrap mcp wrap, status and unwrap", () => {
  it("rewrites an mcp.json so its servers run through the proxy, which works, and gives it back exactly", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-config-"));
    const path = join(dir, "mcp.json");
    const original = `${JSON.stringify(
      {
        mcpServers: {
          everything: {
            command: process.execPath,
            args: [EVERYTHING, "stdio"],
            env: { DEBUG: "0" },
          },
          remote: { url: "https://mcp.example.com/sse" },
        },
      },
      null,
      2,
    )}\n`;
    writeFileSync(path, original);

    const dry = await run(["mcp", "wrap", "--config", path, "--dry-run"], { defaults: false });
    expect(dry.code).toBe(0);
    expect(dry.stdout.toString()).toContain('+        "proxy",');
    expect(readFileSync(path, "utf8")).toBe(original);

    const wrap = await run(["mcp", "wrap", "--config", path, "--tool-timeout", "echo=30s"], {
      defaults: false,
    });
    expect(wrap.code).toBe(0);
    expect(wrap.stdout.toString()).toContain("wrapped everything");
    expect(readFileSync(`${path}.cursor-wrap-backup`, "utf8")).toBe(original);

    const status = await run(["mcp", "status", "--config", path], { defaults: false });
    expect(status.stdout.toString()).toMatch(/everything +stdio +wrapped/);
    expect(status.stdout.toString()).toMatch(/remote +remote +not wrapped/);

    // The entry as written starts the server through the proxy, from anywhere.
    const entry = (
      JSON.parse(readFileSync(path, "utf8")) as {
        mcpServers: Record<
          string,
          { command: string; args: string[]; env: Record<string, string> }
        >;
      }
    ).mcpServers.everything!;
    expect(entry.command).toBe(process.execPath);
    const logDir = mkdtempSync(join(tmpdir(), "mcp-e2e-"));
    const { client } = await connect(entry.command, entry.args, {
      ...entry.env,
      CURSOR_WRAP_LOG_DIR: logDir,
    });
    expect(
      await client.callTool({ name: "echo", arguments: { message: "through the config" } }),
    ).toMatchObject({
      content: [{ type: "text", text: "Echo: through the config" }],
    });
    await client.close();
    expect(
      readdirSync(logDir).some(
        (name) => name.startsWith("cursor-wrap-mcp-") && name.includes("everything"),
      ),
    ).toBe(true);

    const again = await run(["mcp", "wrap", "--config", path], { defaults: false });
    expect(again.stdout.toString()).toContain("already wrapped");

    const unwrap = await run(["mcp", "unwrap", "--config", path], { defaults: false });
    expect(unwrap.code).toBe(0);
    expect(readFileSync(path, "utf8")).toBe(original);
  });
});

describe("cursor-wrap mcp wrap on hostile checkouts and full disks", () => {
  /** A project whose .cursor/mcp.json declares one server, and a file of the user's elsewhere. */
  const project = () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-hostile-"));
    const cursor = join(dir, "repo", ".cursor");
    mkdirSync(cursor, { recursive: true });
    const path = join(cursor, "mcp.json");
    writeFileSync(path, '{"mcpServers":{"repo-server":{"command":"evil","args":["x"]}}}\n');
    const global = join(dir, "home-mcp.json");
    const mine = '{"mcpServers":{"mine":{"command":"my-server"}}}\n';
    writeFileSync(global, mine);
    return { path, global, mine, cursor };
  };

  it("refuses a shipped backup that links to the user's config: exit 1, one line, nothing written through it", async () => {
    const { path, global, mine } = project();
    symlinkSync(global, `${path}.cursor-wrap-backup`);
    const result = await run(["mcp", "wrap", "--config", path], { defaults: false });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain("is a symbolic link, which cursor-wrap did not create");
    expect(result.stderr).not.toContain("    at ");
    expect(readFileSync(global, "utf8")).toBe(mine);
  });

  it("refuses a lock that is a FIFO or a config that is a directory, in one line, without hanging", async () => {
    const { path, cursor } = project();
    spawnSync("mkfifo", [`${path}.cursor-wrap-lock`]);
    const fifo = await run(["mcp", "wrap", "--config", path], { defaults: false });
    expect(fifo.code).toBe(1);
    expect(fifo.stderr).toMatch(/^cursor-wrap: .*the lock .* is a FIFO \(named pipe\)[^\n]*\n$/);
    const directory = join(cursor, "dir.json");
    mkdirSync(directory);
    const asDirectory = await run(["mcp", "status", "--config", directory], { defaults: false });
    expect(asDirectory.code).toBe(1);
    expect(asDirectory.stderr).toMatch(/^cursor-wrap: .*is a directory, not a config file\n$/);
  });

  // Mounting a tmpfs needs root (CI and these machines have it); where it is refused the
  // scene of a full disk cannot be set, so the test is skipped.
  it.skipIf(!canMountSmallFileSystem())(
    "ends with one clear line and the config whole on a full disk",
    async () => {
      const small = mountSmallFileSystem(128 * 1024);
      try {
        const path = join(small.dir, "mcp.json");
        const original = `${JSON.stringify(
          {
            mcpServers: Object.fromEntries(
              Array.from({ length: 60 }, (_, index) => [
                `s${index}`,
                { command: "npx", args: ["-y", `@example/server-${"y".repeat(60)}-${index}`] },
              ]),
            ),
          },
          null,
          2,
        )}\n`;
        writeFileSync(path, original);
        small.fillLeaving(4_096 * 3);
        const result = await run(["mcp", "wrap", "--config", path], { defaults: false });
        expect(result.code).toBe(1);
        expect(result.stderr).toMatch(
          /^cursor-wrap: [^\n]*ENOSPC \(no space left on device\); nothing was changed\n$/,
        );
        expect(readFileSync(path, "utf8")).toBe(original);
        expect(readdirSync(small.dir).filter((name) => name.includes(".tmp"))).toEqual([]);
      } finally {
        small.remove();
      }
    },
  );

  it("wraps a config that is a link at its target, and says so", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-dotfiles-"));
    const real = join(dir, "dotfiles-mcp.json");
    writeFileSync(real, `{"mcpServers":{"fake":{"command":"${process.execPath}"}}}\n`);
    const link = join(dir, "mcp.json");
    symlinkSync(real, link);
    const result = await run(["mcp", "wrap", "--config", link], { defaults: false });
    expect(result.code).toBe(0);
    expect(result.stdout.toString()).toContain(`(a link: changed its target ${real})`);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, "utf8")).toContain('"proxy"');
  });

  it("wraps, shows escaped and unwraps servers named __proto__, --, -h and with escape sequences; unwrap gives the bytes back", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-names-"));
    const path = join(dir, "mcp.json");
    const server = (extra: string) =>
      `{"command":${JSON.stringify(process.execPath)},"args":[${JSON.stringify(fakeMcpServerBin)}${extra}]}`;
    // Odd formatting no serialiser reproduces, to check unwrap restores bytes, not a re-serialisation.
    const original = `{ "mcpServers": {\n  "__proto__": ${server("")},\n  "--" : ${server("")},\n  "-h":${server(', "--banner"')},\n  "evil\\u001b]0;owned\\u0007": ${server("")}\n}}`;
    writeFileSync(path, original);
    const dry = await run(["mcp", "wrap", "--config", path, "--dry-run"], { defaults: false });
    expect(dry.stdout.toString()).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
    const wrapped = await run(["mcp", "wrap", "--config", path, "--max-request-time", "10m"], {
      defaults: false,
    });
    expect(wrapped.code).toBe(0);
    const said = wrapped.stdout.toString();
    expect(said).toContain('wrapped __proto__, "--", "-h", "evil\\u001b]0;owned\\u0007"');
    expect(said).not.toContain("\u001b");
    const status = (
      await run(["mcp", "status", "--config", path], { defaults: false })
    ).stdout.toString();
    expect(status).not.toContain("\u001b");
    expect(status).toMatch(/"-h" +stdio +wrapped/);
    // The entry named -h runs: its name reaches the proxy as one argument.
    const entries = JSON.parse(readFileSync(path, "utf8")).mcpServers as Record<
      string,
      { command: string; args: string[] }
    >;
    expect(Object.keys(entries)).toEqual(["__proto__", "--", "-h", "evil\u001b]0;owned\u0007"]);
    expect(entries["-h"]!.args).toContain("--max-request-time");
    const logDir = mkdtempSync(join(tmpdir(), "mcp-e2e-"));
    const { client } = await connect(entries["-h"]!.command, entries["-h"]!.args, {
      CURSOR_WRAP_LOG_DIR: logDir,
    });
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
    const unwrap = await run(["mcp", "unwrap", "--config", path], { defaults: false });
    expect(unwrap.code).toBe(0);
    expect(readFileSync(path, "utf8")).toBe(original);
  });
});

describe.runIf(process.platform === "linux")("a SIGKILLed mcp proxy", () => {
  it("takes its server and the server's helpers with it, within the kill grace and a bound", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-sigkill-"));
    const pidFile = join(dir, "helpers");
    const proxy = spawn(
      process.execPath,
      [
        CLI,
        "mcp",
        "proxy",
        "--log-dir",
        dir,
        "--",
        process.execPath,
        fakeMcpServerBin,
        "--keep-running",
        "--helpers",
        pidFile,
      ],
      { stdio: ["pipe", "pipe", "inherit"] },
    );
    await expect.poll(() => readPids(pidFile).length, { timeout: 20_000 }).toBe(3);
    const pids = readPids(pidFile);
    expect(pids.every(isAlive)).toBe(true);
    const killedAt = performance.now();
    proxy.kill("SIGKILL");
    await new Promise((resolve) => proxy.once("exit", resolve));
    // The default kill grace (2 s) and a second, with room for a loaded machine.
    await expect.poll(() => pids.filter(isAlive), { timeout: 20_000, interval: 50 }).toEqual([]);
    console.log(
      `server tree gone ${Math.round(performance.now() - killedAt)} ms after the proxy's SIGKILL`,
    );
  });
});

describe("logs show", () => {
  it("interleaves the traffic of the MCP proxies that ran under a session", async () => {
    const session = await run(["-p", "x"], { scenario: "quick" });
    const [file] = logFiles(session);
    const started = readFileSync(file!, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((record) => record.msg === "agent_started")!;
    // A proxy the agent would have started: it carries the run's token.
    const { client } = await connect(
      process.execPath,
      [CLI, "mcp", "proxy", "--server-id", "fake", "--", process.execPath, fakeMcpServerBin],
      {
        CURSOR_WRAP_AGENT_TOKEN: String(started.agent_token),
        CURSOR_WRAP_LOG_DIR: session.logDir,
      },
    );
    await client.callTool({ name: "echo", arguments: { text: "x" } });
    await client.close();
    // The token is the run's own, never redacted: it is what ties the proxy's log to this one.
    expect(started.agent_token).toMatch(/^[0-9a-z]+(?:-[0-9a-z]+){3}$/);
    const shown = (await runInProcess(["logs", "show", file!])).stdout.toString();
    expect(shown).toContain("· mcp fake: proxy started");
    expect(shown).toMatch(/⇄ mcp fake ▸ tools\/call "echo" \(id \d+\)/);
    expect(shown).toMatch(/⇄ mcp fake ◂ tools\/call "echo" answered in \d+ ms/);
    expect(shown).toContain("Done: x");
  });
});
