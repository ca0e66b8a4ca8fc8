import { createInterface, type Interface } from "node:readline";

/** What the user typed: a prompt, the end of input (Ctrl+D / EOF), or Ctrl+C at an empty prompt. */
export type PromptInput =
  | { kind: "prompt"; text: string }
  | { kind: "eof" }
  | { kind: "interrupt" };

/** Reads one prompt per line (R-CLI5): blank lines are skipped. */
export interface PromptReader {
  next(): Promise<PromptInput>;
  close(): void;
}

/**
 * Read prompts from `input`. On a terminal, show `> ` on `output` and let readline edit the
 * line; Ctrl+C on an empty line is an interrupt, on a non-empty one it clears the line. A
 * readline exists only while waiting for a prompt, so during a turn the terminal is back in
 * its normal mode and Ctrl+C reaches the wrapper as SIGINT. From a pipe, lines are read one
 * after the other until EOF.
 */
export function createPromptReader(
  input: NodeJS.ReadableStream & { isTTY?: boolean },
  output: NodeJS.WritableStream,
): PromptReader {
  if (input.isTTY === true) return terminalReader(input, output);
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })[
    Symbol.asyncIterator
  ]();
  return {
    async next() {
      for (;;) {
        const { value, done } = await lines.next();
        if (done) return { kind: "eof" };
        const text = String(value).trim();
        if (text) return { kind: "prompt", text };
      }
    },
    close() {
      void lines.return?.();
    },
  };
}

function terminalReader(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): PromptReader {
  let active: Interface | undefined;
  return {
    next() {
      return new Promise<PromptInput>((resolve) => {
        const rl = createInterface({ input, output, terminal: true, historySize: 100 });
        active = rl;
        let settled = false;
        const finish = (result: PromptInput): void => {
          if (settled) return;
          settled = true;
          active = undefined;
          rl.close();
          resolve(result);
        };
        rl.on("line", (line) => {
          const text = line.trim();
          if (text) finish({ kind: "prompt", text });
          else rl.prompt();
        });
        rl.on("SIGINT", () => {
          if (rl.line.length > 0) {
            // Like a shell: Ctrl+C drops what was typed and asks again.
            rl.write(null, { ctrl: true, name: "e" });
            rl.write(null, { ctrl: true, name: "u" });
            output.write("^C\n");
            rl.prompt();
          } else {
            output.write("\n");
            finish({ kind: "interrupt" });
          }
        });
        rl.on("close", () => finish({ kind: "eof" }));
        rl.setPrompt("> ");
        rl.prompt();
      });
    },
    close() {
      active?.close();
    },
  };
}
