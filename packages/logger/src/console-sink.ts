import { terminalSafe } from "@cursor-wrap/events";
import { createColors } from "picocolors";
import { LEVEL_LABELS, LEVELS, type LevelName } from "./levels.js";

/** Where the console sink writes: usually `process.stderr`. */
export interface ConsoleStream {
  write(text: string): unknown;
  isTTY?: boolean;
  hasColors?: (env?: NodeJS.ProcessEnv) => boolean;
}

/** Where and how much the console sink prints (R-LOG5). */
export interface ConsoleSinkOptions {
  /** Usually `process.stderr`. */
  stream: ConsoleStream;
  /** Lowest level printed. */
  level: LevelName;
  /** Colour the output. Default: the stream is a TTY and NO_COLOR is unset (FORCE_COLOR forces). */
  color?: boolean;
  /** Messages never printed here, because the caller shows them to people another way. */
  skip?: readonly string[];
  /**
   * Messages printed here at most this many times each (a server that prints thousands of log
   * lines on its stdout); past it, one line says that the rest are in the log file only.
   */
  limits?: Readonly<Record<string, number>>;
}

function describe(fields: Record<string, unknown>): string {
  for (const key of ["summary", "message", "detail"]) {
    if (typeof fields[key] === "string" && fields[key]) return fields[key] as string;
  }
  const reason = fields.reason;
  if (
    reason &&
    typeof reason === "object" &&
    typeof (reason as { message?: unknown }).message === "string"
  ) {
    return (reason as { message: string }).message;
  }
  const parts: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    if (key === "ts" || value === undefined || value === null || typeof value === "object")
      continue;
    parts.push(`${key}=${typeof value === "string" ? JSON.stringify(value) : String(value)}`);
    if (parts.length === 6) break;
  }
  return parts.join(" ");
}

/** Default colour decision: FORCE_COLOR forces it; otherwise Node's own terminal check (NO_COLOR, TERM). */
export function colorFor(stream: ConsoleStream, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "" && env.FORCE_COLOR !== "0")
    return true;
  if (env.NO_COLOR) return false;
  return stream.isTTY === true && typeof stream.hasColors === "function" && stream.hasColors(env);
}

/** Render one record for people: `cursor-wrap warn: hang detected: no output for 1m …`. */
export function renderConsoleLine(
  level: number,
  message: string,
  fields: Record<string, unknown>,
  color: boolean,
): string {
  const paint = createColors(color);
  const label = LEVEL_LABELS[level] ?? String(level);
  const tint = level >= LEVELS.error ? paint.red : level >= LEVELS.warn ? paint.yellow : paint.dim;
  // Fields quote the agent (a command, a stderr line): never let them drive the terminal.
  const detail = terminalSafe(describe(fields));
  const what = terminalSafe(message.replace(/_/g, " "));
  return `${paint.dim("cursor-wrap")} ${tint(label)}: ${what}${detail ? `: ${detail}` : ""}\n`;
}
