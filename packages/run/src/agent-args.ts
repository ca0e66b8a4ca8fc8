/** What cursor-wrap does with one of the agent's flags, when it knows the flag. */
export type AgentArgumentRole =
  | "print"
  | "output-format"
  | "resume"
  | "model"
  | "force"
  | "credential"
  | "connection"
  | (string & {});

/**
 * One of the agent's own flags as the caller gave it: its tokens exactly as typed, and, when
 * the caller knows the flag (the CLI reads them by cursor-agent's flag table), its role and
 * value. A flag with no role is passed on as it is.
 */
export interface AgentArgument {
  /** The arguments exactly as given: `["-m", "gpt-5"]`, `["--resume=abc"]`, `["--foo"]`. */
  tokens: readonly string[];
  /** Its value, if it took one. */
  value?: string | undefined;
  /** Its role, when known. */
  flag?: { role?: AgentArgumentRole | undefined } | undefined;
}

/** What decides the agent's arguments for a turn. */
export interface AgentArgsInput {
  /** The agent's flags as the user gave them, in order. */
  given: readonly AgentArgument[];
  /** Pass `--force` unless the user gave one (`-f`, `--force`, `--yolo`). */
  force: boolean;
  /**
   * The session this turn resumes: on the first turn the one the user named (if the command
   * line did not say how to resume), on later turns the one the agent announced.
   */
  resume: string | undefined;
  /** The first turn keeps the user's own `--resume`/`--continue`; later turns resume by id. */
  firstTurn: boolean;
  /**
   * Agent flags that apply unless `given` has them (the CLI's `CURSOR_WRAP_MODEL`), as
   * `--flag value` pairs; a fallback model replaces a `--model` among them.
   */
  fromEnv?: readonly string[];
  /** A fallback model the recovery policy switched to: it replaces the user's `--model`. */
  model?: string | undefined;
  /** An auth profile supplies the credentials: the user's `--api-key`/`--auth-token` are left out. */
  profileCredentials?: boolean;
}

/** The model the user asked for: the last `--model`/`-m`, else `CURSOR_WRAP_MODEL` (via `fromEnv`). */
export function requestedModel(
  given: readonly AgentArgument[],
  fromEnv: readonly string[] = [],
): string | undefined {
  const last = given.filter((argument) => argument.flag?.role === "model").at(-1);
  if (last) return last.value;
  const index = fromEnv.indexOf("--model");
  return index === -1 ? undefined : fromEnv[index + 1];
}

/**
 * The agent's arguments for one headless turn (R-SUP1, R-CLI1b): cursor-wrap's own
 * `--print --output-format stream-json` (and `--resume <id>` on later turns), `--force` unless
 * the user gave one or `--no-force`, then the user's flags unchanged and in their order. The
 * user's `-p` and `--output-format` are cursor-wrap's to act on, so they are not sent twice;
 * the prompt goes to stdin.
 */
export function turnArgs(input: AgentArgsInput): string[] {
  const args = ["--print", "--output-format", "stream-json"];
  const resumedByUser = input.given.some((argument) => argument.flag?.role === "resume");
  if (input.resume !== undefined && (!input.firstTurn || !resumedByUser)) {
    args.push("--resume", input.resume);
  }
  const userForce = input.given.some((argument) => argument.flag?.role === "force");
  if (input.force && !userForce) args.push("--force");
  const fromEnv = input.fromEnv ?? [];
  for (let index = 0; index < fromEnv.length; index += 2) {
    if (input.model !== undefined && fromEnv[index] === "--model") continue;
    args.push(...fromEnv.slice(index, index + 2));
  }
  if (input.model !== undefined) args.push("--model", input.model);
  for (const argument of input.given) {
    switch (argument.flag?.role) {
      case "print":
      case "output-format":
        break;
      case "model":
        if (input.model === undefined) args.push(...argument.tokens);
        break;
      case "credential":
        if (!input.profileCredentials) args.push(...argument.tokens);
        break;
      case "resume":
        if (input.firstTurn) args.push(...argument.tokens);
        break;
      case "force":
        if (input.force) args.push(...argument.tokens);
        break;
      default:
        args.push(...argument.tokens);
    }
  }
  return args;
}

/**
 * cursor-agent's sign-in flags by name, with their roles: how a caller's plain arguments are
 * read (the CLI reads them by cursor-agent's whole flag table instead). Each takes a value.
 */
const SIGN_IN_FLAGS: ReadonlyMap<string, AgentArgumentRole> = new Map([
  ["--api-key", "credential"],
  ["--auth-token", "credential"],
  ["--header", "connection"],
  ["-H", "connection"],
  ["--endpoint", "connection"],
  ["-e", "connection"],
]);

/**
 * A caller's plain arguments (`["--workspace", dir, "--api-key", key]`) as agent arguments: the
 * sign-in flags (`--api-key k`, `--api-key=k`, `-H v`, `-Hv`, `-e url`) get their role, so an auth
 * profile's key replaces the caller's and `agent status` hears whom the turn signed in as;
 * every other argument passes on as it is, one by one.
 */
export function plainAgentArguments(tokens: readonly string[]): AgentArgument[] {
  const given: AgentArgument[] = [];
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index]!;
    // A value given in the same token, as commander reads it: after `=` (`--api-key=k`), or
    // after a short flag's letter (`-Hv`, `-ehttps://…`).
    let name = token;
    let attached: string | undefined;
    if (token.startsWith("--")) {
      const equals = token.indexOf("=");
      if (equals !== -1) [name, attached] = [token.slice(0, equals), token.slice(equals + 1)];
    } else if (token.startsWith("-") && token.length > 2) {
      [name, attached] = [token.slice(0, 2), token.slice(2)];
    }
    const role = SIGN_IN_FLAGS.get(name);
    if (role === undefined) {
      given.push({ tokens: [token] });
    } else if (attached !== undefined) {
      given.push({ tokens: [token], value: attached, flag: { role } });
    } else if (index + 1 < tokens.length) {
      const value = tokens[index + 1]!;
      given.push({ tokens: [token, value], value, flag: { role } });
      index += 1;
    } else {
      given.push({ tokens: [token] });
    }
  }
  return given;
}

/**
 * The arguments `agent status` gets before its command when a sign-in failure is explained:
 * the turn's credentials (`--api-key`, `--auth-token`; not while an auth profile supplies its
 * own, as in {@link turnArgs}) and connection (`-e/--endpoint`, `-H/--header`), so it answers
 * for the account and the server the turn used.
 */
export function signInArgs(given: readonly AgentArgument[], profileCredentials: boolean): string[] {
  const args: string[] = [];
  for (const argument of given) {
    const role = argument.flag?.role;
    if (role === "connection" || (role === "credential" && !profileCredentials)) {
      args.push(...argument.tokens);
    }
  }
  return args;
}
