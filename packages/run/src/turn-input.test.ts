import { describe, expect, it } from "vitest";
import { parseTurnInput, promptOfMessages, TurnInputError } from "./turn-input.js";

const turn = (fields: Record<string, unknown> = {}): string =>
  JSON.stringify({
    type: "turn",
    turnId: "t-1",
    messages: [{ role: "user", content: "fix the build" }],
    ...fields,
  });

/** The message a malformed input is refused with. */
function refusal(input: string): string {
  try {
    parseTurnInput(input);
  } catch (error) {
    expect(error).toBeInstanceOf(TurnInputError);
    expect(TurnInputError.isInstance(error)).toBe(true);
    expect((error as TurnInputError).code).toBe("TURN_INPUT_INVALID");
    return (error as Error).message;
  }
  throw new Error(`accepted: ${input}`);
}

describe("parseTurnInput", () => {
  it("reads a turn: its id, its prompt, and every tool allowed with no list", () => {
    const parsed = parseTurnInput(Buffer.from(`  ${turn()}\n`));
    expect(parsed.turnId).toBe("t-1");
    expect(parsed.prompt).toBe("fix the build");
    expect(parsed.tools).toBeUndefined();
  });

  it("makes each tool's schema a check of its arguments", () => {
    const parsed = parseTurnInput(
      turn({
        tools: [
          { name: "read" },
          {
            name: "shell",
            schema: {
              type: "object",
              properties: { command: { type: "string" } },
              required: ["command"],
            },
          },
        ],
      }),
    );
    const [read, shell] = parsed.tools!;
    expect(read).toEqual({ name: "read" });
    expect(shell!.validate!({ command: "npm test" })).toBeUndefined();
    expect(shell!.validate!({})).toMatch(/command/);
    expect(shell!.validate!({ command: 3 })).toMatch(/string/);
  });

  it("an empty list allows no tool", () => {
    expect(parseTurnInput(turn({ tools: [] })).tools).toEqual([]);
  });

  it.each([
    ["", /stdin was empty/],
    ["   \n", /stdin was empty/],
    ["fix the build", /not one JSON object/],
    [`${turn()}\n${turn()}`, /not one JSON object/],
    ["[]", /expected object/],
    [turn({ type: "message" }), /type/],
    [turn({ turnId: "" }), /turnId/],
    [turn({ messages: [] }), /messages/],
    [turn({ messages: [{ role: "robot", content: "hi" }] }), /messages\.0\.role/],
    [turn({ messages: [{ role: "user", content: " " }] }), /every message is empty/],
    [turn({ extra: 1 }), /extra/],
    [turn({ tools: [{ name: "read" }, { name: "read" }] }), /listed twice/],
    [turn({ tools: [{ name: "x", schema: { type: "no-such-type" } }] }), /not a valid JSON Schema/],
  ])("refuses %j before anything starts", (input, message) => {
    const text = refusal(input);
    expect(text).toMatch(/^malformed turn input: /);
    expect(text).toMatch(message);
  });
});

describe("promptOfMessages", () => {
  it("a single user message is its content as it is", () => {
    expect(promptOfMessages([{ role: "user", content: "  two\nlines " }])).toBe("  two\nlines ");
  });

  it("a conversation heads each message with its role, a blank line between, empties left out", () => {
    expect(
      promptOfMessages([
        { role: "system", content: "Be brief." },
        { role: "user", content: "Hi" },
        { role: "assistant", content: "" },
        { role: "assistant", content: "Hello." },
        { role: "user", content: "Fix it." },
      ]),
    ).toBe("System: Be brief.\n\nUser: Hi\n\nAssistant: Hello.\n\nUser: Fix it.");
  });
});
