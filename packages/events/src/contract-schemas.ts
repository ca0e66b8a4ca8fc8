import { z } from "zod";
import { CONTRACT_ERROR_CODES, type ContractErrorCode } from "./contract-errors.js";

// The adapter contract's shapes: the normalised events this side writes (loose, like every
// schema of this package: a field added later is no error for an older reader), and the turn
// a caller gives on stdin (strict: input that is not understood fails closed).

const codes = CONTRACT_ERROR_CODES as [ContractErrorCode, ...ContractErrorCode[]];

const envelope = <Type extends string, Data extends z.ZodType>(type: Type, data: Data) =>
  z.looseObject({
    type: z.literal(type),
    turnId: z.string().optional().describe("The turn's id, echoed from the turn input"),
    data,
  });

const ContractProtocol = envelope("protocol", z.looseObject({ version: z.string() }));

const ContractAssistantDelta = envelope("assistant_delta", z.looseObject({ content: z.string() }));

const ContractToolCall = envelope(
  "tool_call",
  z.looseObject({
    id: z.string(),
    name: z.string().describe("The canonical name: shell, read, edit, …, mcp/<server>/<tool>"),
    args: z.looseObject({}),
    status: z.enum(["started", "completed", "failed"]),
    durationMs: z.number().nonnegative().optional(),
    summary: z.string().optional(),
  }),
);

const ContractUsage = envelope(
  "usage",
  z.looseObject({
    promptTokens: z.number().nonnegative(),
    completionTokens: z.number().nonnegative(),
    cacheReadTokens: z.number().nonnegative().optional(),
    cacheWriteTokens: z.number().nonnegative().optional(),
  }),
);

const ContractError = envelope(
  "error",
  z.looseObject({ code: z.enum(codes), message: z.string(), fatal: z.boolean() }),
);

const ContractDone = envelope(
  "done",
  z.looseObject({ finishReason: z.enum(["stop", "error", "cancelled"]) }),
);

/** Any event of the normalised stream. */
const ContractEvent = z.discriminatedUnion("type", [
  ContractProtocol,
  ContractAssistantDelta,
  ContractToolCall,
  ContractUsage,
  ContractError,
  ContractDone,
]);

/** Roles a turn's messages may have. */
export const CONTRACT_ROLES = ["system", "developer", "user", "assistant", "tool"] as const;

/** The turn input (stdin with `--input-format turn`): strict, so a misspelt key is an error. */
const ContractTurn = z
  .strictObject({
    type: z.literal("turn"),
    turnId: z.string().min(1).max(256),
    messages: z.array(z.strictObject({ role: z.enum(CONTRACT_ROLES), content: z.string() })).min(1),
    tools: z
      .array(
        z.strictObject({
          name: z.string().min(1),
          description: z.string().optional(),
          schema: z.looseObject({}).optional().describe("A JSON Schema for the tool's arguments"),
        }),
      )
      .optional()
      .describe("The allow-list: absent, every tool is allowed; empty, none is"),
  })
  .superRefine((turn, context) => {
    if (!turn.messages.some((message) => message.content.trim() !== "")) {
      context.addIssue({ code: "custom", message: "every message is empty", path: ["messages"] });
    }
    const seen = new Set<string>();
    for (const [index, tool] of (turn.tools ?? []).entries()) {
      if (seen.has(tool.name)) {
        context.addIssue({
          code: "custom",
          message: `tool ${JSON.stringify(tool.name)} is listed twice`,
          path: ["tools", index, "name"],
        });
      }
      seen.add(tool.name);
    }
  });

/** The adapter contract's schemas: every normalised event, and the turn input. */
export const contractSchemas = {
  ContractEvent,
  ContractProtocol,
  ContractAssistantDelta,
  ContractToolCall,
  ContractUsage,
  ContractError,
  ContractDone,
  ContractTurn,
} as const;

/** A turn input, as the schema reads it. */
export type ContractTurnInput = z.infer<typeof ContractTurn>;
