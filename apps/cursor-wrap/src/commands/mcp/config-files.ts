// What the config commands (`wrap`, `unwrap`, `status`, `run`) share: how an entry runs the
// proxy, and which of a client's config files a command line names.

import { existsSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { resolve, sep } from "node:path";
import {
  CLIENT_NAMES,
  type ClientConfigFile,
  type ClientName,
  clientConfigFiles,
  configFileFor,
  type ProxyInvocation,
  sessionHolders,
} from "@cursor-wrap/mcp";
import { UsageError } from "../../usage-error.js";
import type { McpOptions } from "./flags.js";

/** The options a config command reads, `--client` checked. */
export type McpConfigOptions = Omit<McpOptions, "client"> & { client: ClientName | undefined };

/** Which config files: `--config`, `--client`, `--global`, `--project`. */
export type ConfigChoice = Pick<McpConfigOptions, "config" | "client" | "global" | "project">;

/**
 * How a config entry runs the proxy: this Node and this cursor-wrap, by absolute paths, so it
 * works whatever the PATH is when Cursor starts the server. A copy in npx's cache is refused:
 * npm may delete it at any time.
 */
export function proxyInvocation(script: string = process.argv[1] ?? ""): ProxyInvocation {
  const path = realpathSync(script);
  if (path.includes(`${sep}_npx${sep}`)) {
    throw new UsageError(
      `cursor-wrap is running from npx's cache (${path}), which npm may clear at any time; install it (npm install -g cursor-wrap) and run mcp wrap again`,
    );
  }
  return { command: process.execPath, prefix: [path, "mcp", "proxy"] };
}

/** A `--client` value, checked. */
export function clientOf(name: string): ClientName {
  if (!(CLIENT_NAMES as readonly string[]).includes(name)) {
    throw new UsageError(`unknown client ${JSON.stringify(name)}: ${CLIENT_NAMES.join(", ")}`);
  }
  return name as ClientName;
}

/** Whether a config file is there. */
export const exists = (file: ClientConfigFile): boolean => existsSync(file.path);

/**
 * The config files a client reads, that exist: `--config` (read as `--client` says, else as its
 * name says), else the client's user files (`--global`), a project's (`--project <dir>`), or
 * both (the project is the current directory).
 */
export function existingConfigFiles(
  options: ConfigChoice,
  env: NodeJS.ProcessEnv,
): ClientConfigFile[] {
  const { client } = options;
  const project = options.project ?? process.cwd();
  if (options.config !== undefined) {
    return [configFileFor(options.config, client, { project: resolve(project) })];
  }
  const files = clientConfigFiles(client ?? "cursor", { home: homedir(), project, env });
  const scoped = files.filter((file) =>
    options.global
      ? file.scope === "user"
      : options.project !== undefined
        ? file.scope === "project"
        : true,
  );
  return scoped.filter(exists);
}

/** The entries of a config that live sessions hold, and the sessions. */
export function heldBySessions(path: string) {
  try {
    return sessionHolders(path).filter((holder) => holder.live);
  } catch {
    return [];
  }
}
