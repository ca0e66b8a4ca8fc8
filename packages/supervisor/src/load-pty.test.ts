import { describe, expect, it, vi } from "vitest";

describe("start with pty when no pty package loads", () => {
  it("fails with one clear message naming the packages to install", async () => {
    vi.doMock("./load-pty.js", () => ({ loadPty: async () => null }));
    const { start } = await import("./start.js");
    const error = await start({ bin: process.execPath, prompt: "x", pty: true }).catch(
      (caught) => caught,
    );
    expect(error).toMatchObject({ code: "PTY_UNAVAILABLE" });
    expect(error.message).toBe(
      "a pseudo-terminal needs a pty package: npm install @lydell/node-pty (prebuilt) or node-pty",
    );
    vi.doUnmock("./load-pty.js");
  });
});
