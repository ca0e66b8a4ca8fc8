import {
  type ContractEvent,
  type ContractNormalizer,
  type ContractNormalizerOptions,
  createContractNormalizer,
  terminalSafeJson,
} from "@cursor-wrap/events";
import type { Formatter, Output, WrapperDecision } from "./types.js";

/** Options for {@link createContractStream}. */
export type ContractStreamOptions = Omit<ContractNormalizerOptions, "agentErrors">;

/**
 * A formatter that turns what a supervised run shows (the agent's events, the wrapper's
 * decisions, the end of each prompt) into the adapter contract's normalised events, handed to
 * `emit` (see `createContractNormalizer` in `@cursor-wrap/events`). Each prompt is one contract
 * turn: `protocol` first, `done` exactly once and last (at `endTurn`, or at `close` for a turn
 * the run could not finish). Failures come from the run's decisions, named by their kind, so
 * the agent's own `error` events are not repeated as `AGENT_ERROR`.
 *
 * | decision | contract event |
 * |---|---|
 * | `retry` | `error {code of the failure, fatal: false}` (an attempt follows) |
 * | `hang`, `budget` | `error {HANG \| BUDGET, fatal}` (fatal when it ends the stream) |
 * | `linger` | `error {LINGER, fatal: false}`: the answer is complete (`done` says `stop`) |
 * | `error` | `error {code of the failure, else ABNORMAL_EXIT, fatal: true}` |
 * | `cancelled` | `done {finishReason: "cancelled"}` at the end of the prompt |
 */
export function createContractStream(
  emit: (events: readonly ContractEvent[]) => void,
  options: ContractStreamOptions = {},
): Formatter {
  let normalizer: ContractNormalizer | undefined;
  let turnStarted = false;
  let cancelled = false;
  let text = "";
  const current = (): ContractNormalizer => {
    if (!normalizer || normalizer.ended) {
      normalizer = createContractNormalizer({ ...options, agentErrors: false });
    }
    return normalizer;
  };
  const send = (events: readonly ContractEvent[]): void => {
    if (events.length > 0) emit(events);
  };
  const decided = (decision: WrapperDecision): readonly ContractEvent[] => {
    switch (decision.kind) {
      case "retry":
        // The attempt before is over: what it left running is not running any more.
        return [
          ...current().abandonCalls("the attempt ended before the call did (retried)"),
          ...current().error(
            decision.failure ?? (decision.reason ? "hang" : "agent-error"),
            decision.message ?? decision.reason?.message ?? "retrying",
            false,
          ),
        ];
      case "hang":
      case "budget":
        return current().error(decision.kind, decision.reason.message, decision.terminal);
      case "linger":
        return current().error("linger", decision.reason.message, false);
      case "error":
        return current().error(decision.failure ?? "abnormal", decision.message, true);
      case "cancelled":
        cancelled = true;
        return [];
      default: {
        const unreachable: never = decision;
        return unreachable;
      }
    }
  };
  return {
    startTurn() {
      turnStarted = true;
    },
    write(event) {
      const out = current().push(event);
      if (out.length === 0) return;
      for (const item of out) if (item.type === "assistant_delta") text += item.data.content;
      emit(out);
    },
    flush() {},
    wrapper(decision) {
      send(decided(decision));
    },
    notice() {},
    interrupt() {},
    endTurn() {
      send(current().end(cancelled ? "cancelled" : undefined));
      turnStarted = false;
      cancelled = false;
      text = "";
    },
    partialResult: () => text,
    close(failure) {
      // A turn the run could not finish (the agent could not start, the wrapper failed) still
      // ends with an error and `done`, saying why when the run knows.
      if (!turnStarted || normalizer?.ended) return;
      const turn = current();
      // Cancelled before the turn could end (or begin): that is no failure.
      send(
        cancelled
          ? turn.end("cancelled")
          : [
              ...turn.error(
                "run-failed",
                failure === undefined
                  ? "the run ended before the turn did (see stderr and the log)"
                  : `the run ended before the turn did: ${failure}`,
                true,
              ),
              ...turn.end("error"),
            ],
      );
      turnStarted = false;
    },
  };
}

/** What stands for a value nested deeper than an events line keeps. */
const TOO_DEEP_NOTE = "[nested too deep to write]";
/** Levels of an event an events line keeps when the whole is too deep to serialize. */
const LINE_DEPTH = 64;

/**
 * An event as one line of JSON. A call's arguments are the agent's and can nest thousands of
 * levels deep, deeper than `JSON.stringify` can go (it throws a RangeError): then the line keeps
 * the event's first {@link LINE_DEPTH} levels and writes {@link TOO_DEEP_NOTE} for what lies
 * below (the session log has the agent's line as it came).
 */
function eventLine(event: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(event);
  } catch {
    json = JSON.stringify(shallowCopy(event, LINE_DEPTH));
  }
  // The agent's text in it may hold C1 or bidi controls, which JSON.stringify leaves as they
  // are: written as escapes, the same value, so a terminal showing the stream acts on none.
  return `${terminalSafeJson(json)}\n`;
}

function shallowCopy(value: unknown, depth: number): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (depth === 0) return TOO_DEEP_NOTE;
  if (Array.isArray(value)) return value.map((item) => shallowCopy(item, depth - 1));
  // fromEntries defines each key as the object's own (`__proto__` included).
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, shallowCopy(item, depth - 1)]),
  );
}

/**
 * `--output-format events`: the adapter contract's normalised stream, one JSON object per line
 * (see {@link createContractStream}); the lines of one chunk of agent output are written
 * together.
 */
export function createEventsFormatter(out: Output, options: ContractStreamOptions = {}): Formatter {
  let held = "";
  let flushQueued = false;
  const flush = (): void => {
    flushQueued = false;
    if (held === "") return;
    const text = held;
    held = "";
    out.write(text);
  };
  const stream = createContractStream((events) => {
    for (const event of events) held += eventLine(event);
    if (!flushQueued) {
      flushQueued = true;
      queueMicrotask(flush);
    }
  }, options);
  return {
    ...stream,
    flush,
    wrapper(decision) {
      stream.wrapper(decision);
      flush();
    },
    endTurn(summary) {
      stream.endTurn(summary);
      flush();
    },
    close(failure) {
      stream.close(failure);
      flush();
    },
  };
}
