import { Writable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { terminalSafe } from "@cursor-wrap/events";

/**
 * A stream that shows untrusted bytes on a terminal (R-FMT5): each chunk is decoded (a character
 * split between chunks is kept whole) and written through {@link terminalSafe}. Each write
 * completes when the terminal has taken it, so a slow terminal holds the writer up as it would
 * if the bytes went to it directly. It is never ended (whatever pipes into it may stop at any
 * time, and the terminal stays open), and it never fails: once the terminal is gone (EIO after
 * a hangup), what comes is dropped, so the writer cannot take the process down with it.
 */
export function createTerminalSafeWriter(target: NodeJS.WritableStream): Writable {
  const decoder = new StringDecoder("utf8");
  let gone = false;
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      const text = decoder.write(chunk);
      if (gone || text === "") {
        done();
        return;
      }
      target.write(terminalSafe(text), (error) => {
        if (error) gone = true;
        done();
      });
    },
  });
}
