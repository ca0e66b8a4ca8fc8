// Config files as text: parsed the way their client parses them (strict JSON, or JSON with
// comments and trailing commas), and changed by small edits at the places a rewrite touches,
// so every other byte (comments, formatting, number spellings) stays as the user wrote it.
//
// Objects are built with own keys only (`Object.fromEntries`), so a key `__proto__` is data,
// never a prototype; jsonc-parser's own `parse` assigns keys and would lose it.

import {
  applyEdits,
  createScanner,
  findNodeAtLocation,
  modify,
  type Node,
  type ParseError,
  parseTree,
  printParseErrorCode,
} from "jsonc-parser";

// jsonc-parser's `SyntaxKind` is a const enum, which isolated modules cannot read: its values.
const LINE_COMMENT = 12;
const BLOCK_COMMENT = 13;
const END_OF_FILE = 17;

/** A place in a JSON document: keys and array indexes from the root. */
export type JsonPath = ReadonlyArray<string | number>;

/** One change to a document: the value at `path` becomes `value` (`undefined` removes it). */
export interface JsonEdit {
  path: JsonPath;
  value: unknown;
}

/** How a file's text is read: strict JSON, or JSON with comments and trailing commas. */
export interface JsonSyntax {
  /** Comments and trailing commas allowed (VS Code's and Zed's files). */
  comments: boolean;
}

function nodeValue(node: Node): unknown {
  switch (node.type) {
    case "object":
      return Object.fromEntries(
        (node.children ?? []).map((property) => {
          const [key, value] = property.children ?? [];
          return [String(key?.value), value === undefined ? null : nodeValue(value)];
        }),
      );
    case "array":
      return (node.children ?? []).map(nodeValue);
    case "string":
    case "number":
    case "boolean":
    case "null":
      return node.value as unknown;
    case "property":
      return undefined;
    default: {
      const never: never = node.type;
      return never;
    }
  }
}

/** Where a parse error is, as `line L column C` (1-based), for one-line messages. */
function positionOf(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return `line ${line} column ${offset - before.lastIndexOf("\n")}`;
}

/**
 * Parse a config's text into a value, as its client would: `JSON.parse` for strict JSON; for
 * JSON with comments, a tree with comments and trailing commas allowed (an empty file is
 * `undefined`, as Zed reads an empty settings file). Throws an `Error` whose message says what
 * is wrong and where.
 */
export function parseJsonText(text: string, syntax: JsonSyntax): unknown {
  if (!syntax.comments) return JSON.parse(text) as unknown;
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, {
    allowTrailingComma: true,
    disallowComments: false,
    allowEmptyContent: true,
  });
  const [first] = errors;
  if (first) {
    throw new Error(
      `${printParseErrorCode(first.error)} at ${positionOf(text, first.offset)} (JSON with comments)`,
    );
  }
  return tree === undefined ? undefined : nodeValue(tree);
}

/** The comments of a text, in order (none in strict JSON). */
export function commentsOf(text: string): string[] {
  const scanner = createScanner(text, false);
  const comments: string[] = [];
  for (let kind: number = scanner.scan(); kind !== END_OF_FILE; kind = scanner.scan()) {
    if (kind === LINE_COMMENT || kind === BLOCK_COMMENT) {
      const offset = scanner.getTokenOffset();
      comments.push(text.slice(offset, offset + scanner.getTokenLength()));
    }
  }
  return comments;
}

/**
 * Whether two texts say the same: the same value (key order included) and the same comments.
 * Only whitespace may differ, so writing one in place of the other loses no data and no note.
 */
export function sameMeaning(first: string, second: string, syntax: JsonSyntax): boolean {
  try {
    return (
      JSON.stringify(parseJsonText(first, syntax)) ===
        JSON.stringify(parseJsonText(second, syntax)) &&
      JSON.stringify(commentsOf(first)) === JSON.stringify(commentsOf(second))
    );
  } catch {
    return false;
  }
}

/** The indentation unit of a text (what its first indented line uses). */
function indentUnitOf(text: string): string {
  const match = /\n([ \t]+)\S/.exec(text);
  return match ? match[1]! : "  ";
}

/** A value as JSON on one line, spaced like hand-written JSON: `["-y", "srv"]`. */
function oneLine(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(oneLine).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const members = Object.entries(value).map(
      ([key, member]) => `${JSON.stringify(key)}: ${oneLine(member)}`,
    );
    return members.length === 0 ? "{}" : `{ ${members.join(", ")} }`;
  }
  return JSON.stringify(value);
}

/** The whitespace a line starts with, for the line holding `offset`. */
function lineIndentAt(text: string, offset: number): string {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))![0];
}

/**
 * Apply edits to a text, touching nothing else: a value that exists is replaced where it
 * stands (on one line if it was on one line, else indented like the file); a new property is
 * inserted and a removed one taken out by jsonc-parser's `modify`, which keeps the commas and
 * comments around it right.
 */
export function applyJsonEdits(text: string, edits: readonly JsonEdit[]): string {
  const unit = indentUnitOf(text);
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const formattingOptions = {
    insertSpaces: !unit.startsWith("\t"),
    tabSize: unit.startsWith("\t") ? 1 : unit.length,
    eol,
  };
  let current = text;
  for (const edit of edits) {
    const tree = parseTree(current, [], { allowTrailingComma: true, disallowComments: false });
    const node = tree && findNodeAtLocation(tree, [...edit.path]);
    if (node !== undefined && edit.value !== undefined) {
      const old = current.slice(node.offset, node.offset + node.length);
      const replacement = old.includes("\n")
        ? JSON.stringify(edit.value, null, unit)
            .split("\n")
            .join(`${eol}${lineIndentAt(current, node.offset)}`)
        : oneLine(edit.value);
      current = `${current.slice(0, node.offset)}${replacement}${current.slice(node.offset + node.length)}`;
      continue;
    }
    current = applyEdits(
      current,
      modify(current, [...edit.path], edit.value, { formattingOptions }),
    );
  }
  return current;
}
