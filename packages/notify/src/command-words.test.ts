import { describe, expect, it } from "vitest";
import { commandWords } from "./command-words.js";
import { NotifyOptionError } from "./errors.js";
import { parseNotifyEvents } from "./notify-events.js";

describe("commandWords", () => {
  it("reads quotes and backslashes as a shell does, and runs nothing through one", () => {
    expect(commandWords(`./notify.sh --to "ops team" it\\'s '$HOME' *.log`)).toEqual([
      "./notify.sh",
      "--to",
      "ops team",
      "it's",
      "$HOME",
      "*.log",
    ]);
    expect(commandWords(`sh -c 'jq -r .text | mail -s hang ops@example.com'`)).toEqual([
      "sh",
      "-c",
      "jq -r .text | mail -s hang ops@example.com",
    ]);
  });

  it("refuses what only a shell would do, saying how to get one", () => {
    for (const [line, what] of [
      ["notify.sh | tee x", "`|`"],
      ["a; b", "`;`"],
      ["a > out", "`>`"],
      ["notify.sh $WEBHOOK", "$WEBHOOK"],
      ['notify.sh "$(whoami)"', "$"],
      ["notify.sh # note", "a comment"],
    ] as const) {
      expect(() => commandWords(line)).toThrow(NotifyOptionError);
      expect(() => commandWords(line)).toThrow(what);
      expect(() => commandWords(line)).toThrow("sh -c");
    }
    expect(() => commandWords("  ")).toThrow("needs a command");
  });
});

describe("parseNotifyEvents", () => {
  it("takes a list of events and names a wrong one", () => {
    expect([...parseNotifyEvents("hang, gave-up")]).toEqual(["hang", "gave-up"]);
    expect(() => parseNotifyEvents("hang,stuck")).toThrow(/not "stuck"/);
    expect(() => parseNotifyEvents(",")).toThrow(/at least one/);
  });
});
