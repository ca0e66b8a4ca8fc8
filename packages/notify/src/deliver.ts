// Delivering one notification: to a command (its own process group, the JSON on stdin) or to a
// webhook (an HTTP POST). Each is bounded by a timeout, and each reports how it went instead of
// throwing: a notification must never be what stops a run.

import { spawn } from "node:child_process";
import type { Notification } from "./notification.js";

/** How one delivery went. */
export interface DeliveryResult {
  channel: "command" | "webhook";
  event: Notification["event"];
  ok: boolean;
  /** From the start of the delivery to its end, ms. */
  duration_ms: number;
  timed_out: boolean;
  /** The command's exit code, or the webhook's HTTP status. */
  code: number | null;
  /** The signal that ended the command (a timeout kills its process group). */
  signal: string | null;
  /** Why it failed (spawn error, network error, non-2xx status). */
  error: string | null;
  /** The command's last output (stdout and stderr, as they came), at most 2 KiB. */
  output: string | null;
  /** The command's program, or the webhook's scheme and host (never its path: it is the secret). */
  target: string;
}

/** Output of a command kept, bytes. */
const OUTPUT_KEPT = 2_048;

/** A delivery under way: it ends by itself, or `abort()` ends it now. */
export interface Delivery {
  readonly done: Promise<DeliveryResult>;
  /** End it now (a command's process group is killed). */
  abort(): void;
}

/** `https://hooks.slack.com/services/T…/B…/x…` → `https://hooks.slack.com`: safe to log. */
export function webhookTarget(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return "(invalid URL)";
  }
}

/** Options for {@link runCommand}. */
export interface CommandDeliveryOptions {
  timeoutMs: number;
  /** The command's environment (the caller's, plus the `CURSOR_WRAP_*` variables). */
  env: NodeJS.ProcessEnv;
}

/**
 * Run `words` (no shell) with the notification as JSON on stdin and a few variables:
 * `CURSOR_WRAP_EVENT`, `CURSOR_WRAP_TEXT`, `CURSOR_WRAP_SESSION_ID`, `CURSOR_WRAP_LOG_PATH`,
 * `CURSOR_WRAP_EXIT_CODE` (for `done`). It gets a process group of its own, which the timeout
 * (or `abort()`) kills whole. A command that does not read its stdin is fine.
 */
export function runCommand(
  words: readonly string[],
  notification: Notification,
  options: CommandDeliveryOptions,
): Delivery {
  const started = performance.now();
  const [program, ...args] = words;
  const target = program ?? "";
  const env: NodeJS.ProcessEnv = {
    ...options.env,
    CURSOR_WRAP_EVENT: notification.event,
    CURSOR_WRAP_TEXT: notification.text,
  };
  const optional = {
    CURSOR_WRAP_SESSION_ID: notification.session_id,
    CURSOR_WRAP_LOG_PATH: notification.log_path,
    CURSOR_WRAP_EXIT_CODE: notification.exit_code === null ? null : String(notification.exit_code),
  };
  for (const [name, value] of Object.entries(optional)) {
    if (value === null) delete env[name];
    else env[name] = value;
  }
  let output = Buffer.alloc(0);
  let timedOut = false;
  let kill: () => void = () => {};
  const done = new Promise<DeliveryResult>((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const finish = (fields: Partial<DeliveryResult>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const kept = output.toString("utf8");
      resolve({
        channel: "command",
        event: notification.event,
        ok: false,
        duration_ms: Math.round(performance.now() - started),
        timed_out: timedOut,
        code: null,
        signal: null,
        error: null,
        output: kept === "" ? null : kept,
        target,
        ...fields,
      });
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(target, args, { env, stdio: ["pipe", "pipe", "pipe"], detached: true });
    } catch (error) {
      finish({ error: (error as Error).message });
      return;
    }
    kill = () => {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    };
    timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs);
    const keep = (chunk: Buffer): void => {
      output = Buffer.concat([output, chunk]);
      if (output.length > OUTPUT_KEPT) output = output.subarray(output.length - OUTPUT_KEPT);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    // A command that exits without reading its stdin closes the pipe: that is no failure.
    child.stdin?.on("error", () => {});
    child.stdin?.end(`${JSON.stringify(notification)}\n`);
    child.on("error", (error) => {
      // It never started (no such program, not executable): there will be no exit.
      if (child.pid === undefined) finish({ error: error.message });
    });
    child.on("close", (code, signal) => {
      finish({
        ok: code === 0 && !timedOut,
        code,
        signal,
        error: timedOut
          ? `no exit within ${options.timeoutMs} ms: killed`
          : code === 0
            ? null
            : `exited with ${signal ?? `code ${code}`}`,
      });
    });
  });
  return { done, abort: () => kill() };
}

/** Options for {@link postWebhook}. */
export interface WebhookDeliveryOptions {
  timeoutMs: number;
  /** `User-Agent`, e.g. `cursor-wrap/1.2.3`. */
  userAgent: string;
}

/**
 * POST the notification as JSON to `url`. `text` has `&`, `<` and `>` escaped as Slack asks
 * (so nothing in it becomes a mention such as `<!channel>` or a link); Teams shows it as well.
 * Redirects are not followed (the payload goes where it was sent, or nowhere); any status but
 * 2xx is a failure.
 */
export function postWebhook(
  url: string,
  notification: Notification,
  options: WebhookDeliveryOptions,
): Delivery {
  const started = performance.now();
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  const body = JSON.stringify({
    ...notification,
    text: notification.text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"),
  });
  const result = (fields: Partial<DeliveryResult>): DeliveryResult => ({
    channel: "webhook",
    event: notification.event,
    ok: false,
    duration_ms: Math.round(performance.now() - started),
    timed_out: timedOut,
    code: null,
    signal: null,
    error: null,
    output: null,
    target: webhookTarget(url),
    ...fields,
  });
  const done = new Promise<DeliveryResult>((resolve) => {
    const failed = (error: unknown) =>
      resolve(
        result({
          error: timedOut
            ? `no answer within ${options.timeoutMs} ms`
            : describeRequestError(error),
        }),
      );
    // node:http rather than fetch: the first fetch loads and compiles undici, about 50 ms of CPU
    // more per run for one small POST (https loads its TLS stack only when the URL asks for it).
    const protocol = new URL(url).protocol;
    import(protocol === "https:" ? "node:https" : "node:http")
      .then(({ request }: typeof import("node:http")) => {
        const sent = request(
          url,
          {
            method: "POST",
            headers: {
              "content-type": "application/json",
              "content-length": Buffer.byteLength(body),
              "user-agent": options.userAgent,
            },
            signal: controller.signal,
          },
          (response) => {
            const status = response.statusCode ?? 0;
            // Read the body so the connection is released; what it says is not needed.
            response.resume();
            response.once("error", failed);
            response.once("end", () => {
              const ok = status >= 200 && status < 300;
              resolve(result({ ok, code: status, error: ok ? null : `HTTP ${status}` }));
            });
          },
        );
        sent.once("error", failed);
        sent.end(body);
      })
      .catch(failed);
  }).finally(() => clearTimeout(timer));
  return { done, abort: () => controller.abort() };
}

/** The system's code (`ECONNREFUSED`, `ENOTFOUND`, …) says what went wrong in one word. */
function describeRequestError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && code !== "ABORT_ERR") return code;
  return error instanceof Error ? error.message : String(error);
}
