import { once } from "node:events";
import { PassThrough, Writable } from "node:stream";
import type { AgentEvent } from "@cursor-wrap/events";
import { describe, expect, it } from "vitest";
import { relayStderr } from "./stderr-relay.js";

/** A relay into a PassThrough, its logged lines as text, and the proxy's own stderr writes. */
function relay(show: NodeJS.WritableStream = new PassThrough().resume()) {
  const logged: AgentEvent[] = [];
  const own: string[] = [];
  const target = { write: (text: string) => own.push(text) };
  const stderr = relayStderr(show, target, {
    stderrAll: (events) => logged.push(...events),
  });
  const write = (chunk: Buffer | string) =>
    new Promise<void>((resolve, reject) =>
      stderr.stream.write(chunk, (error) => (error ? reject(error) : resolve())),
    );
  const lines = () =>
    logged.map((event) => (event.kind === "oversize" ? `<piece ${event.offset}>` : event.text));
  return { stderr, write, lines, own, show };
}

describe("relayStderr", () => {
  it("passes the server's bytes on unchanged and logs them line by line", async () => {
    const show = new PassThrough();
    const shown: Buffer[] = [];
    show.on("data", (chunk: Buffer) => shown.push(chunk));
    const { stderr, write, lines } = relay(show);
    const bytes = [
      Buffer.from("listening on stdio\n\x1b[31mred\x1b[0m and "),
      Buffer.from([0xff, 0xfe, 0x0a]),
      Buffer.from("a last line without end"),
    ];
    for (const chunk of bytes) await write(chunk);
    expect(Buffer.concat(shown)).toEqual(Buffer.concat(bytes));
    expect(lines()).toEqual(["listening on stdio", "\x1b[31mred\x1b[0m and \ufffd\ufffd"]);
    stderr.end();
    expect(lines().at(-1)).toBe("a last line without end");
  });

  it("holds the server up while its stderr's reader is behind, and logs it all", async () => {
    const show = new PassThrough({ highWaterMark: 1024 });
    const { write, lines } = relay(show);
    let written = false;
    const writing = write(`${"y".repeat(64 * 1024)}\n`).then(() => {
      written = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toBe(false);
    expect(lines()).toEqual(["y".repeat(64 * 1024)]);
    show.resume();
    await writing;
    expect(written).toBe(true);
  });

  it("logs a line longer than 64 KiB in pieces, as it comes, holding none of it", async () => {
    const { write, lines } = relay();
    const piece = "x".repeat(80 * 1024);
    await write(piece);
    await write(piece);
    await write(`${piece}\nnext\n`);
    expect(lines()).toEqual([
      "<piece 0>",
      `<piece ${piece.length}>`,
      `<piece ${2 * piece.length}>`,
      "next",
    ]);
  });

  it("begins the proxy's own lines on a line of their own after an unfinished line of the server's", async () => {
    const { stderr, write, own } = relay();
    stderr.own.write("cursor-wrap: first\n");
    await write("half a line");
    stderr.own.write("cursor-wrap: second\n");
    await write(" and its end\n");
    stderr.own.write("cursor-wrap: third\n");
    expect(own).toEqual([
      "cursor-wrap: first\n",
      "\n",
      "cursor-wrap: second\n",
      "cursor-wrap: third\n",
    ]);
  });

  it("goes on logging, without failing or waiting, once nobody reads its stderr (EPIPE)", async () => {
    const broken = new Writable({
      write(_chunk, _encoding, done) {
        done(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
      },
    });
    const { write, lines } = relay(broken);
    const failed = once(broken, "error");
    await write("first\n");
    await failed;
    await write("second\n");
    expect(lines()).toEqual(["first", "second"]);
  });
});
