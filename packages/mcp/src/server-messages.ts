// What the server prints, on its way to the client (R-MCP3): untrusted. A response settles its
// request, or is dropped when that request was already answered (late, or twice); progress
// restarts its request's clock; lines that are not JSON-RPC are logged and dropped, each alone;
// a long line passes in pieces only when its head shows a message whose id is known.

import {
  classifyValue,
  errorResponse,
  exactIdOfText,
  type JsonRpcId,
  loggedId,
  type OversizePiece,
  type PendingRequest,
  pathKey,
  type ReadItem,
  scanJson,
  type ValidMessage,
} from "@cursor-wrap/jsonrpc";
import { formatBytes } from "@cursor-wrap/wording";
import {
  errorData,
  forgetProgress,
  type LinkState,
  progressExpired,
  type RequestMeta,
} from "./link-state.js";
import { progressKey, SERVER_GONE_CODE } from "./mcp-messages.js";
import { logMessage } from "./message-log.js";
import { describeRequest } from "./request-policy.js";

const NEWLINE = Buffer.from("\n");

/** A response: settles its request; a late or second one is dropped. Whether to pass it on. */
function settleResponse(state: LinkState, id: JsonRpcId): boolean {
  const request = state.pending.settle(id.key);
  if (request) {
    forgetProgress(state, request.meta);
    state.answered(id);
    return true;
  }
  if (state.pending.takeExpired(id.key)) {
    state.record("mcp_late_response", {
      id: loggedId(id),
      summary: "a response came after its request had timed out (and been answered): dropped",
    });
    return false;
  }
  // Every later answer too, not only the second: the client gets one per request.
  if (state.wasAnswered(id)) {
    state.record("mcp_duplicate_response", {
      id: loggedId(id),
      summary: "a second response to a request already answered: dropped",
    });
    return false;
  }
  state.record("mcp_unknown_response", {
    id: loggedId(id),
    summary: "a response to no pending request: forwarded",
  });
  return true;
}

/** Remember a request the server asked, bounded: the oldest are forgotten, and that is said. */
function createServerRequestMemory(state: LinkState, limit: number) {
  let forgotten = 0;
  return (id: JsonRpcId, method: string): void => {
    state.serverRequests.set(id.key, { method, startedAt: state.now() });
    if (state.serverRequests.size <= limit) return;
    state.serverRequests.delete(state.serverRequests.keys().next().value!);
    forgotten += 1;
    // Said once, then every thousandth: a chatty server must not fill the log either.
    if (forgotten === 1 || forgotten % 1_000 === 0) {
      state.record("mcp_server_requests_forgotten", {
        count: forgotten,
        limit,
        summary: `the client leaves the server's requests unanswered: the oldest are forgotten (${forgotten} so far)`,
      });
    }
  };
}

/** A request whose answer could not be passed on: it gets an error now, not a timeout. */
function failOversizeAnswer(
  state: LinkState,
  request: PendingRequest<RequestMeta>,
  why: string,
): void {
  failUnpassableAnswer(
    state,
    request,
    `a line longer than the proxy's ${formatBytes(state.maxLineBytes)} line cap that ${why}`,
    { maxLineBytes: state.maxLineBytes },
  );
}

/** Where a line's top-level id and method are, for the scanner. */
const ID = pathKey(["id"]);
const METHOD = pathKey(["method"]);

/** A request answered with `what`, which cannot be passed on: an error now, not a timeout. */
function failUnpassableAnswer(
  state: LinkState,
  request: PendingRequest<RequestMeta>,
  what: string,
  data?: Record<string, unknown>,
): void {
  const meta = request.meta;
  // Answered in the server's place: progress still sent for it is late.
  progressExpired(state, meta);
  state.answered(meta.id);
  state.answer(
    errorResponse(
      meta.id,
      SERVER_GONE_CODE,
      `MCP server "${state.serverId}" answered ${describeRequest(meta.method, meta.tool)} with ${what}`,
      errorData(state.serverId, meta, data),
    ),
  );
}

/**
 * The request a line that is not UTF-8 answers, if it does (a response whose text has a stray
 * byte, a Latin-1 `é`): read one byte to a character, its structure and id are as they were.
 */
function answeredByInvalidText(
  state: LinkState,
  line: Buffer,
): PendingRequest<RequestMeta> | undefined {
  return settledBy(state, line.toString("latin1"), line);
}

/**
 * The pending request `text`, read leniently from a line that could not be passed on, answers
 * (settled now, its progress forgotten), if it parses as a response to one.
 */
function settledBy(
  state: LinkState,
  text: string,
  line: Buffer,
): PendingRequest<RequestMeta> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const message = classifyValue(value, line);
  const request = message.kind === "response" ? state.pending.settle(message.id.key) : undefined;
  if (request) forgetProgress(state, request.meta);
  return request;
}

// Raw control characters (but tab), which JSON allows in no string: a server that writes a NUL
// or an escape code from its tool's output as it is.
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f]/g;

/**
 * The pending requests a line that is not JSON answers: one whose strings hold raw control
 * characters (escaped here, it parses), or answers joined to the line before by a bare carriage
 * return (each part parsed alone). Their answers cannot be passed on as they are; their
 * requests get an error now instead of a timeout.
 */
function answeredByBrokenJson(state: LinkState, line: Buffer): PendingRequest<RequestMeta>[] {
  const settled: PendingRequest<RequestMeta>[] = [];
  for (const part of line.toString("utf8").split("\r")) {
    const escaped = part.replace(
      RAW_CONTROL,
      (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
    const request = settledBy(state, escaped, line);
    if (request) settled.push(request);
  }
  return settled;
}

/** The handler of what the server prints. */
export function createServerHandler(
  state: LinkState,
  options: { maxServerRequests: number },
): (item: ReadItem) => void {
  const rememberServerRequest = createServerRequestMemory(state, options.maxServerRequests);

  const fromMessage = (
    message: ValidMessage,
    raw: Buffer,
    line: Buffer,
    unterminated: boolean,
  ): void => {
    if (message.kind === "batch") {
      state.record("mcp_invalid_line", {
        reason: "batch",
        bytes: raw.length,
        summary: "dropped a batch from the server: MCP does not use them",
      });
      return;
    }
    // Logged first, while its request is still known (for the latency).
    logMessage(state, "server→client", message, raw.length);
    if (message.kind === "response" && !settleResponse(state, message.id)) return;
    if (message.kind === "notification" && message.method === "notifications/progress") {
      // Progress for a request: it is alive, its clock starts again (within the cap).
      const key = progressKey(message.params, line);
      const requestKey = key === undefined ? undefined : state.byProgress.get(key);
      if (requestKey !== undefined) state.pending.extend(requestKey);
      else if (key !== undefined && state.expiredProgress.has(key)) {
        // Its request was answered in the server's place: the client has forgotten the token
        // (the MCP SDK reports progress for an unknown token as an error).
        state.record("mcp_late_progress", {
          bytes: raw.length,
          summary:
            "dropped progress for a request already answered with a timeout error (late, as its answer would be)",
        });
        return;
      }
    } else if (message.kind === "request") {
      rememberServerRequest(message.id, message.method);
    }
    // The server's last line had no newline: the client gets it whole, with one.
    state.toClient.forward(unterminated ? Buffer.concat([raw, NEWLINE]) : raw);
  };

  let oversize:
    | { passing: boolean; settled: PendingRequest<RequestMeta> | undefined; why: string }
    | undefined;

  /** Whether a long line may pass, from its head; it settles its request there. */
  const judgeHead = (piece: OversizePiece): NonNullable<typeof oversize> => {
    const envelope = piece.envelope;
    let why = "";
    let settled: PendingRequest<RequestMeta> | undefined;
    let passing = false;
    if (piece.suspect) why = "it follows a line cut short (it may have been smuggled inside it)";
    else if (!envelope.valid || envelope.root !== "object") why = "it is not a JSON object";
    else if (!envelope.jsonrpc2) why = 'its head has no "jsonrpc":"2.0"';
    else if (envelope.id === undefined && envelope.method === undefined) {
      why = "its head names neither an id nor a method: it cannot be matched to a request";
    } else if (envelope.id !== undefined && envelope.method === undefined) {
      settled = state.pending.get(envelope.id.key);
      passing = settleResponse(state, envelope.id);
      if (!passing) why = "it answers a request already answered";
    } else passing = true;
    state.record("mcp_oversize_line", {
      dir: "server→client",
      head_bytes: piece.head.length,
      max_line_bytes: state.maxLineBytes,
      passed: passing,
      ...(passing ? {} : { reason: why }),
      summary: passing
        ? "a line above the line cap passes through in pieces, unparsed"
        : `a line above the line cap is dropped: ${why}`,
    });
    return { passing, settled, why };
  };

  const fromOversize = (piece: OversizePiece): void => {
    if (piece.first) oversize = judgeHead(piece);
    const line = oversize!;
    if (line.passing && !piece.envelope.valid) {
      // Broken half-way: end the client's line here; its request gets an error instead.
      line.passing = false;
      state.toClient.forwardPiece(NEWLINE, true);
      state.record("mcp_oversize_line", {
        dir: "server→client",
        bytes: piece.bytes,
        max_line_bytes: state.maxLineBytes,
        summary: "a line above the line cap turned out not to be JSON half-way: cut off there",
      });
      if (line.settled) failOversizeAnswer(state, line.settled, "was not valid JSON");
      line.settled = undefined;
    }
    if (line.passing) {
      const ended = piece.final && piece.raw.at(-1) !== 0x0a;
      state.toClient.forwardPiece(
        ended ? Buffer.concat([piece.raw, NEWLINE]) : piece.raw,
        piece.final,
      );
    }
    if (!piece.final) return;
    oversize = undefined;
    const message = piece.message;
    if (!line.passing && message?.kind === "response") {
      // Dropped, but it did answer a request: that request gets an error now, not a timeout.
      const request = state.pending.settle(message.id.key);
      if (request) failOversizeAnswer(state, request, `could not be passed on (${line.why})`);
    }
    state.record("mcp_oversize_line", {
      dir: "server→client",
      bytes: piece.bytes,
      kind: message?.kind,
      summary: `a line of ${piece.bytes} bytes ${line.passing ? "passed through" : "was dropped"}`,
    });
  };

  // The last line cut short named an id (it began as an answer): what follows it is not trusted
  // to settle anything.
  let cutLineAnswered = false;
  return (item) => {
    switch (item.kind) {
      case "message":
        fromMessage(item.message, item.raw, item.line, item.unterminated);
        return;
      case "dropped":
        if (item.reason === "smuggled") {
          state.record("mcp_smuggled_line", {
            kind: item.message?.kind,
            bytes: item.raw.length,
            summary:
              "dropped a valid message that followed a line cut short: it may have been smuggled inside it",
          });
          // After a line that answered nothing (a log line that only began like an object),
          // a dropped answer is most likely the server's own: its request gets an error now,
          // not a timeout. After a cut answer, what follows may be forged: it settles nothing
          // (that answer's own request was failed with it).
          const message = item.message;
          const request =
            message?.kind === "response" && !cutLineAnswered
              ? state.pending.settle(message.id.key)
              : undefined;
          if (request) {
            failUnpassableAnswer(
              state,
              request,
              "a message right after a line cut short, which may have been smuggled inside it",
            );
          }
        } else {
          state.record("mcp_invalid_line", {
            reason: item.reason,
            bytes: item.raw.length,
            head: item.line.subarray(0, 200).toString("utf8"),
            summary: `dropped a line from the server that is not a JSON-RPC message (${item.reason})`,
          });
          // An answer the client cannot be given: its request gets an error now, not a timeout.
          if (item.reason === "truncated") {
            // A line cut short by a raw newline: when it began as an answer (a top-level id and
            // no method in what came; a request of the server's has ids of its own), that
            // answer is lost.
            const head = scanJson(item.line, { capture: [["id"], ["method"]] }).captures;
            const id = head.has(METHOD) ? undefined : exactIdOfText(head.get(ID));
            const cut = id === undefined ? undefined : state.pending.settle(id.key);
            cutLineAnswered = id !== undefined;
            if (cut) failUnpassableAnswer(state, cut, "a line cut short (a raw newline inside it)");
            return;
          }
          if (item.reason === "not-json") {
            for (const request of answeredByBrokenJson(state, item.line)) {
              failUnpassableAnswer(
                state,
                request,
                "a line that is not valid JSON (raw control characters, or messages joined by a bare carriage return)",
              );
            }
            return;
          }
          const request =
            item.reason === "not-utf8" ? answeredByInvalidText(state, item.line) : undefined;
          if (request) failUnpassableAnswer(state, request, "a line that is not valid UTF-8");
        }
        return;
      case "oversize":
        fromOversize(item.piece);
        return;
    }
  };
}
