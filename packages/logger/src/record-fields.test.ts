import { describe, expect, it } from "vitest";
import { spawnModel } from "./record-fields.js";

describe("spawnModel", () => {
  it("is the model cursor-wrap chose, else the last -m/--model among the agent's arguments", () => {
    const spawn = (args: unknown[], model?: string) => ({ msg: "agent_spawn", args, model });
    expect(spawnModel(spawn(["--print", "--model", "gpt-5"]))).toBe("gpt-5");
    expect(spawnModel(spawn(["-m", "a", "--model=b"]))).toBe("b");
    expect(spawnModel(spawn(["-mgpt-5-mini"]))).toBe("gpt-5-mini");
    expect(spawnModel(spawn(["--print", "--", "--model", "x"]))).toBeUndefined();
    expect(spawnModel(spawn([]))).toBeUndefined();
    // A fallback the recovery chose wins over the user's own; arguments that are not strings
    // (a damaged log) are skipped.
    expect(spawnModel(spawn(["-m", "gpt-5"], "auto"))).toBe("auto");
    expect(spawnModel(spawn([7, "--model", "sonnet"]))).toBe("sonnet");
    expect(spawnModel({ msg: "agent_spawn" })).toBeUndefined();
  });
});
