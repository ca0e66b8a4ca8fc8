import { type ChildProcess, spawn } from "node:child_process";
import { AGENT_TOKEN_VARIABLE } from "./process-tree.js";

/** An agent the sentinel guards: its process group and the token its whole tree carries. */
export interface GuardedAgent {
  pid: number;
  token: string;
}

/** Options for {@link startTreeSentinel}. */
export interface TreeSentinelOptions {
  /** Time between SIGTERM and SIGKILL, ms (rounded up to whole seconds, at least 1). */
  killGraceMs: number;
  /** The shell to run it with. Default `/bin/sh`. */
  shell?: string;
}

/** A watcher that outlives this process, so the agents it guards cannot outlive it. */
export interface TreeSentinel {
  /** The sentinel's pid (undefined if it could not be started). */
  readonly pid: number | undefined;
  /** Guard an agent's tree from now on. */
  guard(agent: GuardedAgent): void;
  /** The agent is gone (exited, or killed): stop guarding it. */
  release(agent: GuardedAgent): void;
  /** This process is ending normally: the sentinel exits without touching anything. */
  close(): void;
}

// The sentinel, in POSIX sh. stdin carries `guard <token> <pgid>` and `release <token>` lines;
// its end means this process is gone, however it died (SIGKILL, the OOM killer). Then every
// tree still guarded is killed: SIGTERM to each process carrying the token (found by one grep
// over /proc/*/environ, so daemons that left the group are found too) and to the group if its
// leader still carries it (never a group that reused the number), the grace, then SIGKILL.
// Without /proc (macOS), the process group alone.
const SCRIPT = `
grace=$1
live=
while IFS=' ' read -r verb token group; do
  case "$verb" in
    guard) live="$live $token:$group" ;;
    release)
      kept=
      for entry in $live; do [ "\${entry%%:*}" = "$token" ] || kept="$kept $entry"; done
      live=$kept ;;
  esac
done
[ -n "$live" ] || exit 0
signal_trees() {
  for entry in $live; do
    token=\${entry%%:*}
    group=\${entry#*:}
    marker="${AGENT_TOKEN_VARIABLE}=$token"
    if [ -d /proc/self ]; then
      for environ in $(grep -lzxF "$marker" /proc/[0-9]*/environ 2>/dev/null); do
        pid=\${environ#/proc/}
        kill -"$1" "\${pid%/environ}" 2>/dev/null
      done
      if grep -qzxF "$marker" "/proc/$group/environ" 2>/dev/null; then
        kill -"$1" -- "-$group" 2>/dev/null
      fi
    else
      kill -"$1" -- "-$group" 2>/dev/null
    fi
  done
}
signal_trees TERM
sleep "$grace"
signal_trees KILL
`;

/**
 * Start the sentinel (R-SUP3b): a small shell process in a session of its own, holding a pipe
 * from this process. If this process dies without the chance to clean up (SIGKILL, the OOM
 * killer), the pipe closes and the sentinel kills every agent tree still guarded, within the
 * kill grace plus a second. A signal to this process's group does not reach it. After a normal
 * end (`close()`, or every agent released) it exits and touches nothing.
 */
export function startTreeSentinel(options: TreeSentinelOptions): TreeSentinel {
  const grace = Math.max(1, Math.ceil(options.killGraceMs / 1_000));
  let child: ChildProcess | undefined;
  try {
    const env = { ...process.env };
    delete env[AGENT_TOKEN_VARIABLE];
    child = spawn(
      options.shell ?? "/bin/sh",
      ["-c", SCRIPT, "cursor-wrap-sentinel", String(grace)],
      {
        detached: true,
        stdio: ["pipe", "ignore", "ignore"],
        env,
      },
    );
    child.on("error", () => {
      child = undefined;
    });
    child.stdin?.on("error", () => {});
    // Neither the process nor its pipe may keep this process alive.
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  } catch {
    child = undefined;
  }
  const send = (line: string): void => {
    if (child?.stdin && !child.stdin.destroyed) child.stdin.write(`${line}\n`);
  };
  return {
    get pid() {
      return child?.pid;
    },
    guard(agent) {
      send(`guard ${agent.token} ${agent.pid}`);
    },
    release(agent) {
      send(`release ${agent.token}`);
    },
    close() {
      child?.stdin?.end();
    },
  };
}
