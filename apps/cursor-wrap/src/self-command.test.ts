import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { selfCommand } from "./self-command.js";

let root: string;
let script: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "self-command-")));
  mkdirSync(join(root, "clone", "bin"), { recursive: true });
  script = join(root, "clone", "bin", "cursor-wrap.js");
  writeFileSync(script, "#!/usr/bin/env node\n");
  mkdirSync(join(root, "path"));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe("selfCommand", () => {
  it("is node and the script's path when no cursor-wrap on PATH is this one", () => {
    expect(selfCommand(script, { PATH: join(root, "path") }, join(root, "clone"))).toBe(
      "node bin/cursor-wrap.js",
    );
    expect(selfCommand(script, { PATH: "" }, join(root, "elsewhere"))).toBe(`node ${script}`);
    writeFileSync(join(root, "path", "cursor-wrap"), "#!/bin/sh\nexec /opt/other/cursor-wrap\n");
    expect(selfCommand(script, { PATH: join(root, "path") }, root)).toBe(
      "node clone/bin/cursor-wrap.js",
    );
  });

  it("is cursor-wrap when that name on PATH links to this script", () => {
    symlinkSync(script, join(root, "path", "cursor-wrap"));
    expect(selfCommand(script, { PATH: `/nonexistent:${join(root, "path")}` }, root)).toBe(
      "cursor-wrap",
    );
  });

  it("is cursor-wrap when that name on PATH is a shim that starts this script", () => {
    writeFileSync(
      join(root, "path", "cursor-wrap"),
      '#!/bin/sh\nbasedir=$(dirname "$0")\nexec node "$basedir/../clone/bin/cursor-wrap.js" "$@"\n',
    );
    expect(selfCommand(script, { PATH: join(root, "path") }, root)).toBe("cursor-wrap");
  });
});
