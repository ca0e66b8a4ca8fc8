import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DeliveryResult } from "./deliver.js";
import { createNotificationSource, type Notification } from "./notification.js";
import { createNotifier } from "./notifier.js";

const HOOK = fileURLToPath(new URL("./__fixtures__/hook.mjs", import.meta.url));
const SECRET_PATH = "/services/T000/B000/XXXXXXXXXXXXXXXX";

let dir: string;
let out: string;
let server: Server | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "notify-test-"));
  out = join(dir, "hook.jsonl");
});
afterEach(async () => {
  rmSync(dir, { recursive: true, force: true });
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A local webhook receiver: answers each request with `answer` and keeps what it got. */
async function receiver(
  answer: (request: IncomingMessage, response: ServerResponse) => void = (_, response) =>
    response.end("ok"),
): Promise<{
  url: string;
  received: Array<{ path: string; headers: IncomingMessage["headers"]; body: unknown }>;
}> {
  const received: Array<{ path: string; headers: IncomingMessage["headers"]; body: unknown }> = [];
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    request.on("end", () => {
      received.push({ path: request.url ?? "", headers: request.headers, body: JSON.parse(body) });
      answer(request, response);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}${SECRET_PATH}`, received };
}

/** What the hook script recorded, one entry per run of it. */
const hookRuns = (): Array<{
  mode: string;
  pid: number;
  child?: number;
  stdin?: string;
  variables: Record<string, string>;
}> =>
  existsSync(out)
    ? readFileSync(out, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];

/** Running: it exists and is not a zombie waiting to be reaped (as an orphan may be, by pid 1). */
const alive = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
};

/** The notifications of a hang that was not retried: hang, gave-up, done. */
function hangNotifications(): Notification[] {
  const source = createNotificationSource({ host: "runner-7" });
  const records: Array<[string, Record<string, unknown>]> = [
    ["session_start", { log_path: "/logs/run.jsonl" }],
    ["agent_spawn", {}],
    ["hang_detected", { verdict: "hang", summary: "no output for 60.0s <!channel> & co" }],
    ["turn_end", { session_id: "s-1", outcome: "hang" }],
    ["session_end", { outcome: "hang", exit_code: 2 }],
  ];
  return records.flatMap(([message, fields], index) =>
    source.record(message, { msg: message, ts: 1_790_000_000_000 + index, ...fields }),
  );
}

describe("createNotifier", () => {
  it("runs the command once per notification, with the JSON on stdin and CURSOR_WRAP_* variables", async () => {
    const results: DeliveryResult[] = [];
    const notifier = createNotifier({
      command: [process.execPath, HOOK, "ok", out],
      // The command's environment: the caller's (here a clean one, not even PATH: the program is
      // given by its path), plus the variables it gets.
      env: { CURSOR_WRAP_EXIT_CODE: "stale" },
      onResult: (result) => results.push(result),
    });
    const [hang, gaveUp, done] = hangNotifications() as [Notification, Notification, Notification];
    notifier.send(hang);
    notifier.send(done);
    // send() returns before anything starts: the caller may be about to kill an agent.
    expect(hookRuns()).toEqual([]);
    await notifier.settle();
    const runs = hookRuns();
    expect(runs).toHaveLength(2);
    const byEvent = new Map(runs.map((run) => [JSON.parse(run.stdin!).event as string, run]));
    expect(JSON.parse(byEvent.get("hang")!.stdin!)).toEqual(hang);
    expect(byEvent.get("hang")!.variables).toEqual({
      CURSOR_WRAP_EVENT: "hang",
      CURSOR_WRAP_TEXT: hang.text,
      CURSOR_WRAP_LOG_PATH: "/logs/run.jsonl",
    });
    expect(byEvent.get("done")!.variables).toMatchObject({
      CURSOR_WRAP_EVENT: "done",
      CURSOR_WRAP_SESSION_ID: "s-1",
      CURSOR_WRAP_EXIT_CODE: "2",
    });
    expect(results.map((result) => [result.event, result.ok, result.code])).toEqual(
      expect.arrayContaining([
        ["hang", true, 0],
        ["done", true, 0],
      ]),
    );
    expect(gaveUp.event).toBe("gave-up");
  });

  it("posts the same JSON to a webhook, its text safe for Slack, and logs only the host", async () => {
    const hook = await receiver();
    const results: DeliveryResult[] = [];
    const notifier = createNotifier({
      url: hook.url,
      userAgent: "cursor-wrap/1.2.3",
      events: new Set(["hang", "done"]),
      onResult: (result) => results.push(result),
    });
    const notifications = hangNotifications();
    for (const notification of notifications) notifier.send(notification);
    await notifier.settle();
    // gave-up was filtered out.
    expect(hook.received.map((request) => (request.body as Notification).event)).toEqual([
      "hang",
      "done",
    ]);
    const [first] = hook.received;
    expect(first!.path).toBe(SECRET_PATH);
    expect(first!.headers["content-type"]).toBe("application/json");
    expect(first!.headers["user-agent"]).toBe("cursor-wrap/1.2.3");
    expect(first!.body).toEqual({
      ...notifications[0],
      text: notifications[0]!.text.replace("<!channel> &", "&lt;!channel&gt; &amp;"),
    });
    expect(results).toEqual([
      expect.objectContaining({
        channel: "webhook",
        ok: true,
        code: 200,
        target: hook.url.replace(SECRET_PATH, ""),
      }),
      expect.objectContaining({ channel: "webhook", ok: true, code: 200 }),
    ]);
    expect(JSON.stringify(results)).not.toContain("XXXXXXXX");
  });

  it("reports a failing command, a refused webhook and a missing program, and throws nothing", async () => {
    const hook = await receiver((_, response) => {
      response.statusCode = 500;
      response.end("no");
    });
    const results: DeliveryResult[] = [];
    const failing = createNotifier({
      command: [process.execPath, HOOK, "fail", out],
      url: hook.url,
      onResult: (result) => results.push(result),
    });
    const missing = createNotifier({
      command: [join(dir, "no-such-program")],
      onResult: (result) => results.push(result),
    });
    const [hang] = hangNotifications();
    failing.send(hang!);
    missing.send(hang!);
    await Promise.all([failing.settle(), missing.settle()]);
    expect(results).toHaveLength(3);
    const command = results.find((result) => result.channel === "command" && result.code === 3);
    expect(command).toMatchObject({ ok: false, error: "exited with code 3" });
    expect(command!.output).toContain("rejected");
    expect(command!.output).toContain("giving up");
    expect(results.find((result) => result.channel === "webhook")).toMatchObject({
      ok: false,
      code: 500,
      error: "HTTP 500",
    });
    expect(results.find((result) => result.target.endsWith("no-such-program"))).toMatchObject({
      ok: false,
      error: expect.stringContaining("ENOENT"),
    });
  });

  it("follows no redirect and names a refused connection by its code", async () => {
    const hook = await receiver((_, response) => {
      response.statusCode = 302;
      response.setHeader("location", "http://127.0.0.1:1/elsewhere");
      response.end();
    });
    // A port nothing listens on: the closed receiver's.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const results: DeliveryResult[] = [];
    const redirected = createNotifier({
      url: hook.url,
      onResult: (result) => results.push(result),
    });
    const refused = createNotifier({
      url: `http://127.0.0.1:${port}${SECRET_PATH}`,
      onResult: (result) => results.push(result),
    });
    const [hang] = hangNotifications();
    redirected.send(hang!);
    refused.send(hang!);
    await Promise.all([redirected.settle(), refused.settle()]);
    expect(hook.received).toHaveLength(1);
    expect(results.find((result) => result.code === 302)).toMatchObject({
      ok: false,
      error: "HTTP 302",
    });
    expect(results.find((result) => result.code === null)).toMatchObject({
      channel: "webhook",
      ok: false,
      timed_out: false,
      error: "ECONNREFUSED",
      target: `http://127.0.0.1:${port}`,
    });
  });

  it("kills a command that outlives its timeout, its whole process group, and gives up on a silent webhook", async () => {
    const hook = await receiver(() => {
      // never answers
    });
    const results: DeliveryResult[] = [];
    const notifier = createNotifier({
      command: [process.execPath, HOOK, "hang", out],
      url: hook.url,
      timeoutMs: 1_000,
      onResult: (result) => results.push(result),
    });
    notifier.send(hangNotifications()[0]!);
    await notifier.settle();
    expect(results).toHaveLength(2);
    expect(results.find((result) => result.channel === "command")).toMatchObject({
      ok: false,
      timed_out: true,
      signal: "SIGKILL",
      error: "no exit within 1000 ms: killed",
    });
    expect(results.find((result) => result.channel === "webhook")).toMatchObject({
      ok: false,
      timed_out: true,
      error: "no answer within 1000 ms",
    });
    const [run] = hookRuns();
    expect(alive(run!.pid)).toBe(false);
    // The hook's own child, in its process group, went with it.
    await expect.poll(() => alive(run!.child!), { timeout: 10_000 }).toBe(false);
  });

  it("ends what is under way when disposed, and sends nothing after", async () => {
    const results: DeliveryResult[] = [];
    const notifier = createNotifier({
      command: [process.execPath, HOOK, "hang", out],
      timeoutMs: 60_000,
      onResult: (result) => results.push(result),
    });
    notifier.send(hangNotifications()[0]!);
    await expect.poll(() => hookRuns().length, { timeout: 10_000 }).toBe(1);
    notifier.dispose();
    notifier.send(hangNotifications()[0]!);
    await notifier.settle();
    expect(results).toMatchObject([{ ok: false, signal: "SIGKILL", timed_out: false }]);
    expect(hookRuns()).toHaveLength(1);
  });
});
