import type { AgentEvent, ContractNormalizerOptions, Usage } from "@cursor-wrap/events";
import type { Reason } from "@cursor-wrap/monitor";

/**
 * The output formats of cursor-agent, and of the wrapper: `events` is the adapter contract's
 * normalised stream.
 */
export type OutputFormat = "stream-json" | "json" | "text" | "events";

/** Something the wrapper decided, to be shown in the output. */
export type WrapperDecision =
  | {
      kind: "hang" | "linger" | "budget";
      reason: Reason;
      sessionId?: string;
      /** The stream ends here: carry the resume hint and the partial result. */
      terminal: boolean;
    }
  | {
      kind: "retry";
      /** 1 for the first retry (of its kind: hang retries, retries after a backoff, fallbacks). */
      attempt: number;
      maxAttempts: number;
      /** The prompt sent with the retry; none: the user's own prompt again. */
      prompt?: string;
      /** The hang that is retried. */
      reason?: Reason;
      /** One line for people: what happened and what comes next (else the hang's reason). */
      message?: string;
      sessionId?: string;
      /** The failure's kind (`hang`, `overloaded`, `usage-limit`, …). */
      failure?: string;
      /** What the next attempt does: `retry`, `resume`, `switch-model`, `switch-profile`, `wait-until`. */
      action?: string;
      /** The model the next attempt runs on, when it changes. */
      model?: string;
      /** The auth profile the next attempt uses (its name). */
      profile?: string;
      /** The wait before the next attempt, ms. */
      waitMs?: number;
    }
  | { kind: "cancelled"; sessionId?: string; signal?: string; terminal: boolean }
  | {
      /** The turn failed without a result (abnormal exit, auth or quota failure, …). */
      kind: "error";
      message: string;
      sessionId?: string;
      terminal: boolean;
      /** Attempts made at the prompt, when there was more than one. */
      attempts?: number;
      /** The failure's kind (`auth`, `usage-limit`, …); none for an exit nothing names. */
      failure?: string;
    };

/** How a turn went, for the one-line summary. */
export interface TurnSummary {
  durationMs: number;
  toolCalls: number;
  /** Summed over the attempts, when there were several. */
  usage?: Usage;
  outcome: string;
  /** Attempts at the prompt (retries, fallbacks), when more than one. */
  attempts?: number;
  /** The models the attempts ran on, in order. */
  models?: string[];
  /** Time waited between attempts, ms. */
  waitedMs?: number;
}

/** When a soft warning's verdict would fire, so a live display can count down to it. */
export interface NoticeTiming {
  /** Monotonic time (ms, same clock as the events' `recvAt.mono`) the verdict would fire. */
  firesAt: number;
  /** For an idle warning: since when the agent has been quiet. */
  quietSince?: number;
  /** What the countdown leads to: `hang in` (the default), `resuming in`. */
  label?: string;
}

/** Renders events to one output stream. */
export interface Formatter {
  /** A turn starts (its agent is being started): a live status line shows it from now on. */
  startTurn(): void;
  /**
   * Render one event (in stream order). Output may be held until {@link flush} (or the end of
   * the current synchronous run), so a caller can pass a whole chunk of events and have them
   * written together.
   */
  write(event: AgentEvent): void;
  /** Write out whatever {@link write} is holding. */
  flush(): void;
  /** Render a wrapper decision. */
  wrapper(decision: WrapperDecision): void;
  /**
   * A soft warning ("quiet for 30s; hang in 30s"): in text mode a status line that counts down
   * when `timing` is given (also beside a running tool), a dim line off a terminal; nothing in
   * the other formats. An empty message clears the one shown.
   */
  notice(message: string, timing?: NoticeTiming): void;
  /** Something else is about to write to the same terminal: erase the live status line first. */
  interrupt(): void;
  /** The turn is over. */
  endTurn(summary: TurnSummary): void;
  /** The assistant text of the current turn so far. */
  partialResult(): string;
  /**
   * Stop any timer (live elapsed time). `failure`: why the run ended before its turn did (the
   * agent could not be started, …), for a formatter that reports it.
   */
  close(failure?: string): void;
}

/** Where output goes: any writable (stdout, a file, a test sink). */
export interface Output {
  write(chunk: string | Uint8Array): unknown;
  isTTY?: boolean;
  /** A terminal's width in columns (the live status line is cut to fit it). */
  columns?: number;
}

/** Options for {@link createFormatter}. */
export interface FormatterOptions {
  /** The output is a terminal: live status line and turn summary. Default `out.isTTY`. */
  tty?: boolean;
  /** Colour. Default: FORCE_COLOR, else a terminal that Node says has colours (NO_COLOR honoured). */
  color?: boolean;
  /** Monotonic clock, ms, for live elapsed times. Default `performance.now()`. */
  now?: () => number;
  /** Refresh period of the live elapsed time on a terminal, ms. Default 1000. */
  refreshMs?: number;
  /** `events`: the turn's id and tools (see `createContractNormalizer`). */
  contract?: Omit<ContractNormalizerOptions, "agentErrors">;
}
