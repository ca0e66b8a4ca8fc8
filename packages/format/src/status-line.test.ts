import { createColors } from "picocolors";
import { describe, expect, it } from "vitest";
import { createStatusLine } from "./status-line.js";

function setUp(columns?: number, colour = false) {
  let clock = 0;
  let written = "";
  const line = createStatusLine({
    out: {
      write(chunk) {
        written += String(chunk);
        return true;
      },
      ...(columns === undefined ? {} : { columns }),
    },
    tty: true,
    paint: createColors(colour),
    now: () => clock,
    refreshMs: 1_000,
    atLineStart: () => true,
  });
  return {
    line,
    at(ms: number) {
      clock = ms;
    },
    /** What the line shows now (the text after the last erase). */
    shown() {
      line.refresh();
      const shownNow = written.split("\r\u001b[2K").at(-1) ?? "";
      return shownNow;
    },
  };
}

describe("createStatusLine", () => {
  it("never takes the terminal's whole width, so it cannot wrap and leave copies behind", () => {
    const { line, at, shown } = setUp(40);
    line.startTurn(0);
    line.toolStarted("c1", `\`npm run ${"a".repeat(60)}\``, 0);
    at(2_000);
    // ⏳ takes two columns: 39 in all. The command is cut, never the elapsed time after it.
    expect(shown()).toBe(`⏳ \`npm run ${"a".repeat(19)}… · 2.0s`);
    line.toolEnded("c1");
    line.toolStarted("c2", "`ls`", 2_000);
    expect(shown()).toBe("⏳ `ls` · 0ms");
    // Wide characters count twice; a cut inside colour resets it.
    const wide = setUp(12, true);
    wide.line.startTurn(0);
    wide.line.toolStarted("c1", "日本語のコマンド", 0);
    expect(wide.shown().replace(/\u001b\[[0-9;]*m/g, "")).toBe("⏳ … · 0ms");
    expect(wide.shown()).toContain("…\u001b[0m");
    const narrower = setUp(22, true);
    narrower.line.startTurn(0);
    narrower.line.toolStarted("c1", "日本語のコマンド", 0);
    expect(narrower.shown().replace(/\u001b\[[0-9;]*m/g, "")).toBe("⏳ 日本語のコ… · 0ms");
    narrower.line.close();
    line.close();
    wide.line.close();
  });

  it("says what the agent is doing from the start of a turn", () => {
    const { line, at, shown } = setUp();
    line.startTurn(0);
    at(2_000);
    expect(shown()).toBe("… waiting for cursor-agent · 2.0s");
    line.setPhase("thinking", 2_500);
    at(6_500);
    expect(shown()).toBe("… thinking · 4.0s");
    line.setPhase("responding", 7_000);
    line.toolStarted("c1", "`npm test`", 7_000);
    at(9_000);
    expect(shown()).toBe("⏳ `npm test` · 2.0s");
    line.reset();
    expect(shown()).toBe("");
    line.close();
  });

  it("counts down to the verdict a warning announces, also beside a running tool", () => {
    const { line, at, shown } = setUp();
    line.startTurn(0);
    line.setNotice("… quiet for 30s; hang in 30s", { firesAt: 60_000, quietSince: 0 });
    at(30_000);
    expect(shown()).toBe("… quiet for 30.0s · hang in 30.0s if nothing arrives");
    at(45_000);
    expect(shown()).toBe("… quiet for 45.0s · hang in 15.0s if nothing arrives");
    line.setNotice("");
    line.toolStarted("c1", "`make`", 45_000);
    line.setNotice("… tool call running long", { firesAt: 80_000 });
    at(50_000);
    expect(shown()).toBe("⏳ `make` · 5.0s · hang in 30.0s");
    line.close();
  });
});
