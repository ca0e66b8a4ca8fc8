import { CursorWrapError } from "@cursor-wrap/errors";
import type { ContractTool, JsonObject } from "@cursor-wrap/events";
import { type ContractTurnInput, contractSchemas } from "@cursor-wrap/events/schemas";
import { Ajv, type ErrorObject } from "ajv";

/** A turn input that cannot be run: not JSON, not one turn object, or not a valid one. */
export class TurnInputError extends CursorWrapError {
  static override readonly marker: string = "cursor-wrap.error.turn-input";

  constructor(message: string, options: { cause?: unknown } = {}) {
    super("TURN_INPUT_INVALID", `malformed turn input: ${message}`, options);
  }
}

/** A turn, read and checked (see {@link parseTurnInput}). */
export interface TurnInput {
  /** Echoed in every normalised event. */
  turnId: string;
  /** The messages as one prompt (see {@link promptOfMessages}). */
  prompt: string;
  messages: ContractTurnInput["messages"];
  /**
   * The allow-list, each tool with a check of its arguments from its JSON Schema; undefined when
   * the turn has no `tools` (every tool is allowed), empty when it lists none (no tool is).
   */
  tools: ContractTool[] | undefined;
}

/** Role names as they head a message in the prompt. */
const ROLE_LABELS: Record<ContractTurnInput["messages"][number]["role"], string> = {
  system: "System",
  developer: "Developer",
  user: "User",
  assistant: "Assistant",
  tool: "Tool",
};

/**
 * The prompt a turn's messages make: a single user message is its content as it is; otherwise
 * each message is `<Role>: <content>` (`System: …`, `User: …`, `Assistant: …`), in order,
 * separated by a blank line, so the agent reads the conversation as it was. Messages with no
 * text are left out.
 */
export function promptOfMessages(messages: ContractTurnInput["messages"]): string {
  const spoken = messages.filter((message) => message.content.trim() !== "");
  if (spoken.length === 1 && spoken[0]!.role === "user") return spoken[0]!.content;
  return spoken.map((message) => `${ROLE_LABELS[message.role]}: ${message.content}`).join("\n\n");
}

/** One line per issue: where, and what is wrong. */
function describeIssues(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      const where = issue.path.map(String).join(".");
      return where === "" ? issue.message : `${where}: ${issue.message}`;
    })
    .join("; ");
}

function describeAjvErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 3)
    .map((error) => `${error.instancePath || "(arguments)"} ${error.message ?? "is invalid"}`)
    .join("; ");
}

/**
 * Read a turn input (`--input-format turn`, the adapter contract's stdin): exactly one JSON
 * object `{"type":"turn","turnId","messages":[{role,content}],"tools":[{name,schema}]}`, with
 * nothing but white space around it. Anything else throws a {@link TurnInputError} that says
 * what is wrong, so nothing is started on input that is not understood: not JSON, trailing
 * data, a key the contract does not have, a role it does not know, no message with text, a tool
 * listed twice, a tool schema that is not a valid JSON Schema.
 */
export function parseTurnInput(input: string | Uint8Array): TurnInput {
  const text =
    typeof input === "string" ? input : new TextDecoder("utf-8", { fatal: false }).decode(input);
  if (text.trim() === "") throw new TurnInputError("stdin was empty; it must hold one turn object");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new TurnInputError(
      `not one JSON object (${error instanceof Error ? error.message : String(error)})`,
      { cause: error },
    );
  }
  const parsed = contractSchemas.ContractTurn.safeParse(value);
  if (!parsed.success) throw new TurnInputError(describeIssues(parsed.error.issues));
  const turn = parsed.data;
  // Tool schemas are the caller's JSON Schema (draft-07 keywords, the common dialect of tool
  // definitions); an unknown keyword or format is ignored rather than refused, and Ajv reports
  // nothing on its own (a library does not write to stderr).
  const ajv = new Ajv({ strict: false, allErrors: false, logger: false, validateFormats: false });
  const tools = turn.tools?.map((tool): ContractTool => {
    if (tool.schema === undefined) return { name: tool.name };
    let validate: ReturnType<typeof ajv.compile>;
    try {
      validate = ajv.compile(tool.schema);
    } catch (error) {
      throw new TurnInputError(
        `tools: the schema of ${JSON.stringify(tool.name)} is not a valid JSON Schema (${error instanceof Error ? error.message : String(error)})`,
        { cause: error },
      );
    }
    return {
      name: tool.name,
      validate: (args: JsonObject) =>
        validate(args) ? undefined : describeAjvErrors(validate.errors),
    };
  });
  return {
    turnId: turn.turnId,
    prompt: promptOfMessages(turn.messages),
    messages: turn.messages,
    tools,
  };
}
