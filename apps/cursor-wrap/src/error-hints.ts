// What a person can do about a library's error, in this CLI's terms. The libraries' errors carry
// data (the binary, the system error code, the directory) and say what went wrong; the flag that
// helps is named here, where the error is reported.

// Errors are told apart by their `code`, not their class: this file is in the static graph of
// every command (`--help` too), which must not load the libraries that define the classes.
import type { AgentSpawnError } from "@cursor-wrap/supervisor";

/** What the `log_dir_shared` warning advises: tighten the directory, or log elsewhere. */
export const SHARED_LOG_DIRECTORY_ADVICE = "chmod o-w, or --log-dir";

/**
 * An error's message as cursor-wrap prints it: with `--log-dir` for a log directory it cannot
 * write, `--pty`'s install hint for a missing pty package, and otherwise the message as it is
 * (any thrown value: a library's error is told apart by its `code`).
 */
export function messageWithHint(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "LOG_DIR_UNWRITABLE") {
    return `${message} (set --log-dir to a writable directory)`;
  }
  if (code === "PTY_UNAVAILABLE") {
    return "--pty needs a pseudo-terminal package: npm install @lydell/node-pty (prebuilt) or node-pty";
  }
  return message;
}

/**
 * The message of an agent that did not start on the run path, where `--agent-bin` chose it: what
 * to set, or to install, for each reason.
 */
export function agentStartMessage(error: AgentSpawnError): string {
  // Its working directory, not the binary: no flag of cursor-wrap's would change that.
  if (error.message.includes(": its working directory ")) return error.message;
  switch (error.reason) {
    case "EACCES":
      return `${error.message} (set --agent-bin to a working binary)`;
    case "ENOENT":
      return error.bin.includes("/")
        ? `${error.message} (set --agent-bin to the cursor-agent binary)`
        : `${error.message} (install the Cursor CLI or set --agent-bin)`;
    default:
      return error.message;
  }
}

/**
 * The flag that raises the limit an MCP proxy's record says was reached, as a hint to append to
 * its summary; the proxy's records carry the limit (`max_line_bytes`, `cause: "cap"`), not the
 * flag.
 */
export function mcpLimitHint(record: Record<string, unknown>): string | undefined {
  if (record.msg === "mcp_oversize_line") return "--max-line raises the line cap";
  if (record.msg === "mcp_request_timed_out" && record.cause === "cap") {
    return "--max-request-time raises the cap";
  }
  return undefined;
}
