// A record built as text, without pino: the same line pino writes for those fields, in the same
// order (`level`, `time`, `ts`, the fields, `msg`), for a fraction of the cost. Used for the
// records written by the thousand: an MCP proxy's one record per message, and the session
// log's records of plain fields (`plainRecordLine`).

/**
 * The JSONL line of a record whose fields the caller wrote as JSON members (`"dir":"…","bytes":
 * 151`, no braces; empty for none). `time` is the record's clock reading (ms since the epoch);
 * `ts` the reading pino's mixin takes just after it (the same one will do).
 */
export function recordText(
  level: number,
  time: number,
  message: string,
  members: string,
  ts: number = time,
): string {
  const fields = members === "" ? "" : `${members},`;
  return `{"level":${level},"time":${time},"ts":${ts},${fields}"msg":${JSON.stringify(message)}}\n`;
}
