// `cursor-wrap mcp wrap` and `mcp unwrap`: every stdio server of a client's configs through the
// proxy, or given its own command back.

import { homedir } from "node:os";
import { terminalSafe } from "@cursor-wrap/events";
import {
  type ClientConfigFile,
  type ClientName,
  type ConfigUpdate,
  clientConfigFiles,
  sameEntry,
  unwrapConfig,
  updateConfigFile,
  wrapConfig,
} from "@cursor-wrap/mcp";
import { createTwoFilesPatch } from "diff";
import { CLIENT_LABELS, shownEntries, shownFile } from "../../mcp-sessions.js";
import type { RunIo } from "../../run-io.js";
import { UsageError } from "../../usage-error.js";
import {
  existingConfigFiles,
  exists,
  heldBySessions,
  type McpConfigOptions,
  proxyInvocation,
} from "./config-files.js";

/** The files `wrap`/`unwrap` change: without `--client`, Cursor's project file, else its user one. */
function filesToRewrite(options: McpConfigOptions, env: NodeJS.ProcessEnv): ClientConfigFile[] {
  if (options.config !== undefined || options.client !== undefined) {
    const files = existingConfigFiles(options, env);
    if (files.length === 0) {
      const looked = clientConfigFiles(options.client!, {
        home: homedir(),
        project: options.project ?? process.cwd(),
        env,
      });
      throw new UsageError(
        `no ${CLIENT_LABELS[options.client!]} MCP config found (looked for ${looked.map((file) => shownFile(file.path)).join(", ")}); give one with --config`,
      );
    }
    return files;
  }
  // Cursor's, as before --client: the current directory's project file, else the user's.
  const files = clientConfigFiles("cursor", {
    home: homedir(),
    project: options.project ?? process.cwd(),
    env,
  });
  const user = files.find((file) => file.scope === "user")!;
  const project = files.find((file) => file.scope === "project")!;
  if (options.global) return [user];
  if (options.project !== undefined) return [project];
  return [exists(project) ? project : user];
}

/** A file as printed: the path given, and the file changed when it is a link. */
function shownPath(update: ConfigUpdate): string {
  return update.target === undefined
    ? shownFile(update.path)
    : `${shownFile(update.path)} (a link: changed its target ${shownFile(update.target)})`;
}

/** `mcp wrap` and `mcp unwrap`. */
export function rewriteCommand(
  options: McpConfigOptions,
  io: RunIo,
  env: NodeJS.ProcessEnv,
): number {
  const wrap = options.action === "wrap";
  const proxy = wrap ? { ...proxyInvocation(), options: options.proxyFlags } : undefined;
  const clients = new Set<ClientName>();
  for (const file of filesToRewrite(options, env)) {
    const holders = heldBySessions(file.path);
    const held = holders.flatMap((holder) => holder.entries);
    // Entries a running session wrapped are that session's to give back, when it ends.
    const only = (ref: { map: readonly (string | number)[]; name: string }) =>
      !held.some((entry) => sameEntry(entry, ref));
    const scope = { dialect: file.dialect, context: file.context, only };
    const update = updateConfigFile(
      file.path,
      (config) => (proxy ? wrapConfig(config, proxy, scope) : unwrapConfig(config, scope)),
      { dryRun: options.dryRun, restoreExactly: !wrap, syntax: file.dialect },
    );
    for (const holder of holders) {
      io.stdout.write(
        `${shownFile(file.path)}: a running MCP session (pid ${holder.pid}, ${terminalSafe(JSON.stringify(holder.command))}) holds ${shownEntries(holder.entries)} until it ends; left to it\n`,
      );
    }
    if (options.dryRun) {
      const shown = update.target ?? file.path;
      // The file's text may hold raw control characters (JSON allows C1 and bidi controls).
      io.stdout.write(
        update.changed.length === 0
          ? `${shownPath(update)}: nothing to ${options.action}\n`
          : terminalSafe(
              createTwoFilesPatch(shown, shown, update.before, update.after, "", "(dry run)"),
            ),
      );
      continue;
    }
    const verb = wrap ? "wrapped" : "unwrapped";
    const skipped = (item: { name: string; why: string; scope?: string }) =>
      `${shownEntries([{ map: [], name: item.name, ...(item.scope === undefined ? {} : { scope: item.scope }) }])}: ${item.why}`;
    io.stdout.write(
      update.changed.length === 0
        ? `${shownPath(update)}: nothing to ${options.action}${update.skipped.length > 0 ? ` (${update.skipped.map(skipped).join("; ")})` : ""}\n`
        : `${shownPath(update)}: ${verb} ${shownEntries(update.entries)}${update.backup ? ` (the previous file is in ${shownFile(update.backup)})` : ""}\n`,
    );
    if (update.changed.length > 0) {
      for (const item of update.skipped) io.stdout.write(`  left alone: ${skipped(item)}\n`);
      clients.add(file.client);
    }
  }
  for (const client of clients) {
    io.stdout.write(
      `Restart ${CLIENT_LABELS[client]} (or reload its MCP servers) for the change to take effect.\n`,
    );
  }
  return 0;
}
