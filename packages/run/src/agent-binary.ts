import { homedir } from "node:os";
import { join } from "node:path";
import { AgentSpawnError, findExecutable } from "@cursor-wrap/supervisor";

/** Where the agent is looked for, in order, when neither `--agent-bin` nor its variable says. */
function agentCandidates(home: string = homedir()): string[] {
  return [
    "cursor-agent",
    "agent",
    join(home, ".local", "bin", "cursor-agent"),
    join(home, ".local", "bin", "agent"),
  ];
}

/**
 * The agent binary to run (R-CLI1d): `explicit` (from `--agent-bin` or `CURSOR_WRAP_AGENT_BIN`)
 * if given, else the first of `cursor-agent` on PATH, `agent` on PATH (newer installs), and the
 * installer's `~/.local/bin/{cursor-agent,agent}`. Throws an `AgentSpawnError` naming every
 * place tried.
 */
export function findAgentBinary(
  explicit: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  home: string = homedir(),
): string {
  if (explicit !== undefined) {
    const found = findExecutable(explicit, env);
    if (found.path !== undefined) return found.path;
    throw new AgentSpawnError(
      explicit,
      found.reason,
      found.reason === "EACCES"
        ? `${found.denied} is not executable (set --agent-bin to a working binary)`
        : explicit.includes("/")
          ? "no such file (set --agent-bin to the cursor-agent binary)"
          : "not found on PATH (install the Cursor CLI or set --agent-bin)",
    );
  }
  const tried = agentCandidates(home);
  for (const candidate of tried) {
    const found = findExecutable(candidate, env);
    if (found.path !== undefined) return found.path;
  }
  const shown = tried.map((candidate) =>
    candidate.includes("/") ? candidate.replace(home, "~") : `${candidate} on PATH`,
  );
  throw new AgentSpawnError(
    "cursor-agent",
    "ENOENT",
    `not found (tried ${shown.join(", ")}); install the Cursor CLI (curl https://cursor.com/install -fsS | bash) or set --agent-bin`,
  );
}
