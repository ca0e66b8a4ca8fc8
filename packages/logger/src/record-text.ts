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
  return `{"level":${level},"time":${clockText(time)},"ts":${clockText(ts)},${fields}"msg":${messageText(message)}}\n`;
}

// Records come by the thousand within a millisecond and with a few dozen messages: the text of
// the last clock reading and of each message is kept (a 13-digit number written anew and a
// message escaped anew cost a third of a record).
let lastClock = Number.NaN;
let lastClockText = "";
const messageTexts = new Map<string, string>();

function clockText(time: number): string {
  if (time !== lastClock) {
    lastClock = time;
    lastClockText = `${time}`;
  }
  return lastClockText;
}

function messageText(message: string): string {
  let text = messageTexts.get(message);
  if (text === undefined) {
    text = JSON.stringify(message);
    if (messageTexts.size < 256) messageTexts.set(message, text);
  }
  return text;
}
