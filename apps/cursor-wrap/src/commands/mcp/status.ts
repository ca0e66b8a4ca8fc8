// `cursor-wrap mcp status`: each client's configs, each server, and whether it is wrapped.

import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { CursorWrapError } from "@cursor-wrap/errors";
import { terminalSafe } from "@cursor-wrap/events";
import {
  CLIENT_NAMES,
  type ClientConfigFile,
  clientConfigFiles,
  readConfigFile,
  recoverMcpSessions,
  sameEntry,
  serverStatuses,
} from "@cursor-wrap/mcp";
import { messageWithHint } from "../../error-hints.js";
import {
  CLIENT_LABELS,
  mcpSessionsDir,
  recoveryLines,
  shownFile,
  shownName,
} from "../../mcp-sessions.js";
import { printError } from "../../print-error.js";
import type { RunIo } from "../../run-io.js";
import { existingConfigFiles, heldBySessions, type McpConfigOptions } from "./config-files.js";

/** The config files `status` shows: the ones given, else every client's that exist. */
function filesToShow(options: McpConfigOptions, env: NodeJS.ProcessEnv): ClientConfigFile[] {
  if (options.config !== undefined) return existingConfigFiles(options, env);
  if (options.client !== undefined) {
    const found = existingConfigFiles(options, env);
    if (found.length > 0) return found;
    const all = clientConfigFiles(options.client, {
      home: homedir(),
      project: options.project ?? process.cwd(),
      env,
    });
    return all.slice(0, 1);
  }
  return CLIENT_NAMES.flatMap((client) => existingConfigFiles({ ...options, client }, env));
}

/** `mcp status`: each config found, each server, and whether it runs through the watchdog. */
export function statusCommand(
  options: McpConfigOptions,
  io: RunIo,
  env: NodeJS.ProcessEnv,
): number {
  for (const line of recoveryLines(recoverSafely())) io.stdout.write(`${line}\n`);
  const files = filesToShow(options, env);
  if (files.length === 0) {
    io.stdout.write(
      `no MCP config found (looked for ${CLIENT_NAMES.map((client) => CLIENT_LABELS[client]).join(", ")}'s in ${shownFile(homedir())} and ${shownFile(options.project ?? process.cwd())})\n`,
    );
    return 0;
  }
  let unreadable = 0;
  for (const file of files) {
    const label = `${CLIENT_LABELS[file.client]} ${shownFile(file.path)}`;
    if (!existsSync(file.path)) {
      io.stdout.write(`${label}: no MCP config\n`);
      continue;
    }
    let config: ReturnType<typeof readConfigFile>["config"];
    try {
      ({ config } = readConfigFile(file.path, file.dialect));
    } catch (error) {
      // One broken file says so; the others are still listed, and the exit code tells.
      if (!CursorWrapError.isInstance(error)) throw error;
      unreadable += 1;
      io.stdout.write(`${label}: cannot be read\n`);
      printError(io.stderr, messageWithHint(error));
      continue;
    }
    const statuses = serverStatuses(config, { dialect: file.dialect, context: file.context });
    io.stdout.write(`${label}: ${statuses.length} server${statuses.length === 1 ? "" : "s"}\n`);
    const holders = heldBySessions(file.path);
    const shown = statuses.map(
      (status) =>
        `${shownName(status.name)}${status.scope === undefined ? "" : ` (${terminalSafe(status.scope)})`}`,
    );
    const width = Math.max(0, ...shown.map((name) => name.length));
    for (const [index, status] of statuses.entries()) {
      const holder = holders.find((item) =>
        item.entries.some((entry) =>
          sameEntry(entry, { map: status.map ?? [], name: status.name }),
        ),
      );
      const what =
        status.transport === "remote"
          ? `remote  not wrapped (a URL: nothing to proxy) ${terminalSafe(status.url ?? "")}`
          : status.transport === "unknown"
            ? `?       not wrapped (${terminalSafe(status.why ?? "no command or url")})`
            : `stdio   ${status.wrapped ? "wrapped    " : "not wrapped"} ${terminalSafe([status.command, ...(status.args ?? [])].join(" "))}`;
      const session = holder
        ? ` [for the MCP session of pid ${holder.pid}, ${terminalSafe(JSON.stringify(holder.command))}, until it ends]`
        : "";
      io.stdout.write(`  ${shown[index]!.padEnd(width)}  ${what}${session}\n`);
      for (const note of status.notes ?? []) {
        io.stdout.write(`  ${"".padEnd(width)}  note: ${terminalSafe(note)}\n`);
      }
    }
  }
  return unreadable === 0 ? 0 : 1;
}

/** The recovery of dead sessions, which never stops a command. */
function recoverSafely() {
  try {
    return recoverMcpSessions(mcpSessionsDir());
  } catch {
    return [];
  }
}
