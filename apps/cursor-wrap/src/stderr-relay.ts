// The stderr of a process a proxy runs (an MCP server under `cursor-wrap mcp proxy`, the agent
// under `cursor-wrap acp`), as the proxy passes it on: byte for byte to the proxy's stderr
// (which the editor reads as that process's log), and line by line into the proxy's log, so
// the log of a hung call holds what the process said before it.

import { Writable } from "node:stream";
import { createLineFramer } from "@cursor-wrap/events";
import type { ConsoleStream, SessionLog } from "@cursor-wrap/logger";

/** Bytes of a stderr line logged at once: a longer line is logged in pieces. */
const PIECE_BYTES = 64 * 1024;

const NEWLINE = 0x0a;

/** The relay of a process's stderr. */
export interface StderrRelay {
  /** What the process's stderr is piped (or written) into. */
  readonly stream: Writable;
  /**
   * The proxy's own lines, on the same stderr: each begins on a line of its own, also when
   * the process's last line so far has no end yet.
   */
  readonly own: ConsoleStream;
  /** The process is gone: log a last line that had no end. */
  end(): void;
}

/**
 * Relay a process's stderr to `show` (the proxy's stderr, or a terminal-safe writer in front of
 * it) and into `log`. Each write completes when `show` has taken it, so a reader that does not
 * keep up holds the server up as it would without the proxy; nothing is queued here.
 */
export function relayStderr(
  show: NodeJS.WritableStream,
  target: ConsoleStream,
  log: Pick<SessionLog, "stderrAll"> | undefined,
): StderrRelay {
  const framer = createLineFramer({ parseCap: PIECE_BYTES });
  let midLine = false;
  // Once the reader of our stderr is gone (EPIPE), what comes is logged only: the process must
  // not be held up, nor the proxy taken down, by a stderr nobody reads.
  let gone = false;
  const onError = (): void => {
    gone = true;
  };
  show.on("error", onError);
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (chunk.length === 0) {
        done();
        return;
      }
      midLine = chunk[chunk.length - 1] !== NEWLINE;
      // Logged before it is passed on, as the agent's output is: a proxy killed in between
      // still has it in its log.
      try {
        log?.stderrAll(framer.push(chunk));
      } finally {
        if (gone) done();
        else
          show.write(chunk, (error) => {
            if (error) gone = true;
            done();
          });
      }
    },
  });
  const own: ConsoleStream = {
    write(text) {
      if (midLine) {
        midLine = false;
        target.write("\n");
      }
      return target.write(text);
    },
    ...(target.isTTY === undefined ? {} : { isTTY: target.isTTY }),
    ...(target.hasColors === undefined ? {} : { hasColors: target.hasColors.bind(target) }),
  };
  return {
    stream,
    own,
    end() {
      log?.stderrAll(framer.end());
    },
  };
}
