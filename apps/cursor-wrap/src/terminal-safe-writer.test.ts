import { PassThrough, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createTerminalSafeWriter } from "./terminal-safe-writer.js";

/** Write `chunks` through a terminal-safe writer; what the terminal received. */
async function shown(chunks: Buffer[]): Promise<string> {
  const terminal = new PassThrough();
  const received: Buffer[] = [];
  terminal.on("data", (chunk: Buffer) => received.push(chunk));
  const writer = createTerminalSafeWriter(terminal);
  for (const chunk of chunks) writer.write(chunk);
  await new Promise<void>((resolve, reject) =>
    writer.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
  return Buffer.concat(received).toString("utf8");
}

describe("createTerminalSafeWriter", () => {
  it("shows an MCP server's escape sequences instead of letting them act", async () => {
    const text = await shown([Buffer.from("starting \u001b]0;pwned\u0007 server\n\u001b[2J")]);
    expect(text).toBe("starting \\x1b]0;pwned\\x07 server\n\\x1b[2J");
  });

  it("keeps a character split between chunks whole", async () => {
    const bytes = Buffer.from("naïve 🚀\n");
    for (let cut = 1; cut < bytes.length; cut += 1) {
      expect(await shown([bytes.subarray(0, cut), bytes.subarray(cut)])).toBe("naïve 🚀\n");
    }
  });

  it("keeps CRLF line endings and shows a lone CR, which would overwrite the line", async () => {
    expect(await shown([Buffer.from("one\r\ntwo\n50%\r60%\n")])).toBe("one\ntwo\n50%\\r60%\n");
  });

  it("drops what comes once the terminal is gone, instead of failing", async () => {
    let writes = 0;
    const closed = new Writable({
      write(_chunk, _encoding, done) {
        writes += 1;
        done(Object.assign(new Error("write EIO"), { code: "EIO" }));
      },
    });
    closed.on("error", () => {});
    const writer = createTerminalSafeWriter(closed);
    const failed: unknown[] = [];
    writer.on("error", (error) => failed.push(error));
    for (const line of ["one\n", "two\n", "three\n"]) {
      await new Promise<void>((resolve) => writer.write(Buffer.from(line), () => resolve()));
    }
    expect(failed).toEqual([]);
    expect(writes).toBe(1);
  });
});
