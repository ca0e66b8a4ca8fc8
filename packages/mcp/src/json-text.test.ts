import { describe, expect, it } from "vitest";
import { applyJsonEdits, commentsOf, parseJsonText, sameMeaning } from "./json-text.js";

const JSONC = { comments: true };
const STRICT = { comments: false };

describe("parseJsonText", () => {
  it("reads JSON with comments and trailing commas, keeping a __proto__ key as data", () => {
    const value = parseJsonText('{ // note\n "__proto__": { "a": 1, }, "b": [1, 2,], }', JSONC);
    expect(Object.keys(value as object)).toEqual(["__proto__", "b"]);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(parseJsonText("  // nothing but a comment\n", JSONC)).toBeUndefined();
  });

  it("says where JSON with comments is broken, and refuses comments in strict JSON", () => {
    expect(() => parseJsonText('{\n  "a": 1\n  "b": 2\n}', JSONC)).toThrow(
      /CommaExpected at line 3 column 3/,
    );
    expect(() => parseJsonText('{ "a": 1 } // no', STRICT)).toThrow(SyntaxError);
  });
});

describe("applyJsonEdits", () => {
  it("replaces values where they stand, on one line if they were on one line", () => {
    const text =
      '{\n  "s": { "command": "npx", "args": ["-y", "x"] }, // keep me\n  "n": 1.10\n}\n';
    const after = applyJsonEdits(text, [
      { path: ["s", "command"], value: "/bin/node" },
      { path: ["s", "args"], value: ["a", "--", "npx"] },
    ]);
    expect(after).toBe(
      '{\n  "s": { "command": "/bin/node", "args": ["a", "--", "npx"] }, // keep me\n  "n": 1.10\n}\n',
    );
  });

  it("indents a multi-line value like the file, and inserts and removes properties", () => {
    const text = '{\n\t"s": {\n\t\t"command": "x",\n\t\t"args": [\n\t\t\t"1"\n\t\t]\n\t}\n}';
    const replaced = applyJsonEdits(text, [{ path: ["s", "args"], value: ["2", "3"] }]);
    expect(replaced).toBe(
      '{\n\t"s": {\n\t\t"command": "x",\n\t\t"args": [\n\t\t\t"2",\n\t\t\t"3"\n\t\t]\n\t}\n}',
    );
    const removed = applyJsonEdits(replaced, [{ path: ["s", "args"], value: undefined }]);
    expect(parseJsonText(removed, STRICT)).toEqual({ s: { command: "x" } });
    const inserted = applyJsonEdits(removed, [{ path: ["s", "args"], value: ["4"] }]);
    expect(parseJsonText(inserted, STRICT)).toEqual({ s: { command: "x", args: ["4"] } });
  });
});

describe("sameMeaning", () => {
  it("is the same data and the same comments, whatever the whitespace", () => {
    expect(sameMeaning('{"a":[1,2]} // c', '{ "a": [ 1, 2 ] }\n// c', JSONC)).toBe(true);
    expect(sameMeaning('{"a":1} // c', '{"a":1} // d', JSONC)).toBe(false);
    expect(sameMeaning('{"a":1,"b":2}', '{"b":2,"a":1}', STRICT)).toBe(false);
    expect(commentsOf('/* x */ {"a": "// not a comment"} // y')).toEqual(["/* x */", "// y"]);
  });
});
