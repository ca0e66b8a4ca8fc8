import { closeSync, constants, openSync, readSync } from "node:fs";
import { createInterface, type Interface } from "node:readline";
import { isatty } from "node:tty";
import type { PromptHistory } from "./prompt-history.js";

/**
 * What the user typed: a prompt, the end of input (Ctrl+D / EOF), Ctrl+C at an empty prompt,
 * or nothing more ever: the terminal went away (closed window, SSH session, tmux pane).
 */
export type PromptInput =
  | { kind: "prompt"; text: string }
  | { kind: "eof" }
  | { kind: "interrupt" }
  | { kind: "hangup" };

/** Reads one prompt per line (R-CLI5): blank lines are skipped. */
export interface PromptReader {
  /** `afterCancel`: see {@link AFTER_CANCEL_MS}. */
  next(options?: { afterCancel?: boolean }): Promise<PromptInput>;
  close(): void;
}

/** Options for {@link createPromptReader}. */
export interface PromptReaderOptions {
  /** Prompt history for Up/Down on a terminal (R-CLI5b). */
  history?: PromptHistory;
}

/**
 * After a turn cancelled by Ctrl+C, a Ctrl+C at the empty prompt this soon is the second tap of
 * that one (a common reflex: the cancel takes a moment), not a request to end the session.
 */
const AFTER_CANCEL_MS = 1_000;

/** Turns bracketed paste on and off: a paste then arrives between `ESC[200~` and `ESC[201~`. */
const PASTE_ON = "\u001b[?2004h";
const PASTE_OFF = "\u001b[?2004l";

/**
 * Read prompts from `input`. On a terminal, show `> ` on `output` and let readline edit the
 * line, with history (Up/Down, across sessions) and pasting: a multi-line paste is one prompt.
 * Ctrl+C on an empty line is an interrupt, on a non-empty one it clears the line. A terminal
 * that goes away is a hangup, and a line typed on it but not sent is discarded. Between
 * prompts the terminal is back in its normal mode, so Ctrl+C reaches the wrapper as SIGINT, and
 * what is typed meanwhile waits for the next prompt. From a pipe, lines are read one after the
 * other until EOF.
 */
export function createPromptReader(
  input: NodeJS.ReadableStream & { isTTY?: boolean },
  output: NodeJS.WritableStream,
  options: PromptReaderOptions = {},
): PromptReader {
  if (input.isTTY === true) return terminalReader(input as NodeJS.ReadStream, output, options);
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

/**
 * A terminal that went away fails every raw-mode switch with EIO, also the one readline makes
 * when it closes: that is a hangup, not a crash of the wrapper, so it is ignored here (the
 * read side reports the hangup).
 */
function tolerateHangup(input: NodeJS.ReadStream): void {
  const setRawMode = input.setRawMode?.bind(input);
  if (!setRawMode) return;
  input.setRawMode = (mode: boolean) => {
    try {
      return setRawMode(mode);
    } catch {
      return input;
    }
  };
}

function terminalReader(
  input: NodeJS.ReadStream,
  output: NodeJS.WritableStream,
  options: PromptReaderOptions,
): PromptReader {
  const history = options.history;
  tolerateHangup(input);
  // A terminal in raw mode never ends by itself (Ctrl+D is a key): an end of input is the
  // terminal going away. Listening before readline does, so this is known when it closes.
  let hungUp = false;
  const onInputEnd = (): void => {
    hungUp = true;
  };
  input.prependListener("end", onInputEnd);
  // readline redraws its prompt when the terminal is resized, even while paused: during a
  // turn that would write "> " over the agent's output. Its listener is taken off between
  // prompts and put back while one is asked.
  const resizeListeners = new Set(output.listeners("resize"));
  const rl: Interface = createInterface({
    input,
    output,
    terminal: true,
    historySize: 500,
    removeHistoryDuplicates: true,
    history: history?.load() ?? [],
  });
  rl.setPrompt("> ");
  const redraws = output.listeners("resize").filter((listener) => !resizeListeners.has(listener));
  const redrawOnResize = (on: boolean): void => {
    for (const listener of redraws) {
      output.off("resize", listener as () => void);
      if (on) output.on("resize", listener as () => void);
    }
  };
  // Typed (or pasted) prompts not asked for yet: none is lost.
  const queued: PromptInput[] = [];
  let waiting: ((input: PromptInput) => void) | undefined;
  let pasting = false;
  let pasted: string[] = [];
  let closed = false;
  // Closed by the caller (the session is over), not by the user's Ctrl+D.
  let closedByCaller = false;
  // Until when a Ctrl+C at the empty prompt is taken for a second tap of a cancel.
  let secondTapUntil = 0;

  const deliver = (result: PromptInput): void => {
    if (waiting) {
      const resolve = waiting;
      waiting = undefined;
      pause();
      resolve(result);
    } else queued.push(result);
  };

  /** Between prompts: the terminal in its normal mode, so Ctrl+C is SIGINT and echo works. */
  const pause = (): void => {
    if (closed) return;
    output.write(PASTE_OFF);
    rl.pause();
    redrawOnResize(false);
    input.setRawMode?.(false);
  };

  // Reading a terminal that went away fails (EIO): nothing more will be typed.
  const onInputError = (): void => {
    hungUp = true;
    if (!closed) rl.close();
  };
  input.on("error", onInputError);

  const onKeypress = (_text: string, key: { name?: string } | undefined): void => {
    if (key?.name === "paste-start") pasting = true;
    else if (key?.name === "paste-end") pasting = false;
  };
  input.on("keypress", onKeypress);

  rl.on("line", (line) => {
    // readline has just put the line in its history: keep only whole prompts there.
    const rlHistory = (rl as unknown as { history: string[] }).history;
    if (rlHistory[0] === line) rlHistory.shift();
    if (hungUp) {
      // On a terminal that went away readline hands over whatever was typed on the line, as if
      // Enter had been pressed. Nobody sent it: it is dropped, like the terminal it was typed on.
      pasted = [];
      return;
    }
    if (pasting) {
      pasted.push(line);
      return;
    }
    const text = [...pasted, line].join("\n");
    pasted = [];
    if (!text.trim()) {
      if (waiting) rl.prompt();
      return;
    }
    if (!text.startsWith(" ")) {
      rlHistory.unshift(text);
      history?.add(text);
    }
    deliver({ kind: "prompt", text: text.trim() });
  });
  rl.on("SIGINT", () => {
    if (rl.line.length > 0 || pasted.length > 0) {
      // Like a shell: Ctrl+C drops what was typed and asks again.
      pasted = [];
      rl.write(null, { ctrl: true, name: "e" });
      rl.write(null, { ctrl: true, name: "u" });
      output.write("^C\n");
      rl.prompt();
    } else if (performance.now() < secondTapUntil) {
      secondTapUntil = 0;
      output.write("^C\n");
      rl.prompt();
    } else {
      output.write("\n");
      deliver({ kind: "interrupt" });
    }
  });
  // Ctrl+Z at the prompt: readline stops the process, and on `fg` (SIGCONT) pauses its input
  // and leaves resuming to us; left paused, nothing would keep the process alive.
  rl.on("SIGCONT", () => {
    if (waiting && !closed) rl.resume();
  });
  rl.on("close", () => {
    closed = true;
    input.off("keypress", onKeypress);
    input.off("end", onInputEnd);
    output.write(PASTE_OFF);
    // Ctrl+D at the prompt: end its line, so what is printed next (the shell's prompt) starts
    // on a line of its own.
    if (!hungUp && !closedByCaller) output.write("\n");
    deliver(hungUp ? { kind: "hangup" } : { kind: "eof" });
  });
  output.on("error", () => {
    // the terminal went away: the read side says so
  });
  pause();

  return {
    next(options) {
      const ready = queued.shift();
      if (ready) return Promise.resolve(ready);
      if (closed) return Promise.resolve({ kind: "eof" });
      secondTapUntil = options?.afterCancel === true ? performance.now() + AFTER_CANCEL_MS : 0;
      return new Promise<PromptInput>((resolve) => {
        waiting = resolve;
        input.setRawMode?.(true);
        redrawOnResize(true);
        rl.resume();
        output.write(PASTE_ON);
        rl.prompt();
      });
    },
    close() {
      closedByCaller = true;
      if (!closed) rl.close();
      if (!hungUp) discardTypedAhead(input);
    },
  };
}

/**
 * Drop what was typed during the session's last turn and never asked for. Between prompts the
 * terminal keeps it queued (it waits for the next prompt); once the session is over the shell
 * would read it, and run a line meant for the agent ("git reset --hard and retry") as a
 * command. It is read off the terminal, as `tcflush` would (Node has none): through a file of
 * its own on the same terminal (a file description of its own, so non-blocking for this read
 * alone), after the terminal is put in raw mode so that a line not ended with Enter goes too.
 */
function discardTypedAhead(input: NodeJS.ReadStream): void {
  if (process.platform === "win32") return;
  let fd: number | undefined;
  let raw = false;
  try {
    // The terminal the prompts were typed on, opened anew (Linux); elsewhere the process's own
    // terminal, which it is unless stdin was redirected from another one.
    const stdinFd = (input as { fd?: number }).fd ?? 0;
    const flags = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;
    try {
      fd = openSync(process.platform === "linux" ? `/proc/self/fd/${stdinFd}` : "/dev/tty", flags);
    } catch {
      // A terminal this user may not open anew by its /proc path (after `su`): its own name.
      fd = openSync("/dev/tty", flags);
    }
    if (!isatty(fd)) return;
    input.setRawMode?.(true);
    raw = true;
    const buffer = Buffer.alloc(4096);
    // Bounded: what a person types (or pastes) in one turn, many times over.
    for (let reads = 0; reads < 1024; reads += 1) {
      if (readSync(fd, buffer, 0, buffer.length, null) <= 0) break;
    }
  } catch {
    // EAGAIN: nothing (more) was typed. No terminal to open: nothing to drop.
  } finally {
    if (raw) input.setRawMode?.(false);
    if (fd !== undefined) closeSync(fd);
  }
}
