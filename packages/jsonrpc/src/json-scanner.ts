// A streaming check of JSON text, byte by byte, that builds no values: whether the bytes so far
// are valid JSON, a valid beginning of it, or neither; and the exact text of a few members
// (the top-level `id`, say). It serves what `JSON.parse` cannot: a line too long to hold in
// memory, a line that failed to parse (cut short, or broken?), and a number id above 2^53,
// whose digits `JSON.parse` rounds.
//
// Hand-written because streaming JSON parsers turn numbers into doubles (the digits are lost)
// and build the values they pass by; this keeps only the envelope. It accepts exactly what
// `JSON.parse` accepts of UTF-8 text (a property test holds it to that).

/** Where one scan stands. */
export type ScanStatus =
  /** One whole JSON value, and at most whitespace after it. */
  | "complete"
  /** A valid beginning of a JSON value that has not ended (or only whitespace so far). */
  | "truncated"
  /** Not JSON: a byte no JSON text can have here. */
  | "invalid";

/** What the top-level value is, once it has begun. */
export type JsonRoot = "object" | "array" | "string" | "number" | "literal";

/** A member to capture: keys of objects and indexes of arrays, from the top. */
export type JsonPath = readonly (string | number)[];

/** Options for {@link createJsonScanner}. */
export interface JsonScannerOptions {
  /** Members whose exact text to keep (e.g. `[["id"], ["params", "name"]]`). */
  capture?: readonly JsonPath[];
  /** Captured texts longer than this are dropped, bytes. Default 1024. */
  maxCaptureBytes?: number;
}

/** What a scan found. */
export interface ScanResult {
  status: ScanStatus;
  /** The top-level value's kind, once it began. */
  root: JsonRoot | undefined;
  /** Exact JSON text of each captured member seen (by `pathKey`); the last one wins, as in `JSON.parse`. */
  captures: ReadonlyMap<string, string>;
  /**
   * Where each captured member's value lies in the bytes scanned, `[from, to)` (by `pathKey`;
   * also for a value longer than `maxCaptureBytes`); the last one wins.
   */
  spans: ReadonlyMap<string, readonly [from: number, to: number]>;
  /** The top-level object's keys so far, in order (the first 64). */
  keys: readonly string[];
  /** Bytes scanned so far. */
  bytes: number;
  /** Where the first invalid byte was (invalid only). */
  errorAt?: number;
}

/** A scanner fed a stream a chunk at a time. */
export interface JsonScanner {
  /** Scan more bytes. Does nothing once the text is invalid. */
  push(chunk: Uint8Array): void;
  /** Where the scan stands now (also mid-stream). */
  result(): ScanResult;
}

/** The map key of a path in `captures`. */
export const pathKey = (path: JsonPath): string => JSON.stringify(path);

enum Mode {
  /** A value must come (the start, after `:`, after `,` in an array). */
  Value,
  /** After `[`: a value or `]`. */
  ValueOrEnd,
  /** After `{`: a key or `}`. */
  KeyOrEnd,
  /** After `,` in an object: a key. */
  Key,
  /** After a key: `:`. */
  Colon,
  /** After a value inside a container: `,` or its end. */
  AfterValue,
  /** Inside a string. */
  String,
  /** After a backslash in a string. */
  Escape,
  /** In the four hex digits of `\u`. */
  Unicode,
  /** Inside a number. */
  Number,
  /** Inside `true`, `false` or `null`. */
  Literal,
  /** The top-level value is over: only whitespace may follow. */
  Done,
  Invalid,
}

enum NumberPart {
  Minus,
  Zero,
  Integer,
  Dot,
  Fraction,
  Exponent,
  ExponentSign,
  ExponentDigits,
}

const isWhitespace = (byte: number): boolean =>
  byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
const isDigit = (byte: number): boolean => byte >= 0x30 && byte <= 0x39;
const isHex = (byte: number): boolean =>
  isDigit(byte) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);

const LITERALS: Readonly<Record<number, Uint8Array>> = {
  116: new TextEncoder().encode("true"),
  102: new TextEncoder().encode("false"),
  110: new TextEncoder().encode("null"),
};

interface Container {
  object: boolean;
  /** The member this container is (its key or index in its parent). */
  path: (string | number)[];
  /** Next array index. */
  index: number;
  /** The key of the member being read (objects). */
  key: string | undefined;
}

const decoder = new TextDecoder();

/**
 * Create a {@link JsonScanner}. Memory stays bounded whatever the text's size: the nesting
 * (one small record per level) and the captures (each at most `maxCaptureBytes`).
 */
export function createJsonScanner(options: JsonScannerOptions = {}): JsonScanner {
  const wanted = new Map<string, JsonPath>();
  let deepest = 0;
  for (const path of options.capture ?? []) {
    wanted.set(pathKey(path), path);
    deepest = Math.max(deepest, path.length);
  }
  const maxCapture = options.maxCaptureBytes ?? 1_024;
  const captures = new Map<string, string>();
  const spans = new Map<string, readonly [number, number]>();
  const keys: string[] = [];

  let mode: Mode = Mode.Value;
  let root: JsonRoot | undefined;
  let total = 0;
  let errorAt: number | undefined;
  const stack: Container[] = [];
  // Strings: whether it is a key, the key's bytes (bounded), UTF-8 continuation bytes expected.
  let inKey = false;
  let keyBytes: number[] = [];
  let utf8Needed = 0;
  let utf8Low = 0x80;
  let utf8High = 0xbf;
  let hexLeft = 0;
  let numberPart = NumberPart.Minus;
  let literal: Uint8Array | undefined;
  let literalAt = 0;
  // Leading byte-order mark, as the UTF-8 decoder drops it before `JSON.parse` sees the text.
  let bomAt = 0;
  // The capture under way: its key, the depth it began at, and its bytes so far.
  let capturing: string | undefined;
  let captureDepth = 0;
  let captureParts: Uint8Array[] = [];
  let captureBytes = 0;
  let captureFrom = -1;
  // Bytes before the chunk being scanned, and where the capture under way began in all of them.
  let chunkBase = 0;
  let captureStart = 0;

  const pathOf = (): (string | number)[] => {
    const top = stack.at(-1);
    if (!top) return [];
    return [...top.path, top.object ? (top.key ?? "") : top.index];
  };

  /** A value begins at `index` of the chunk: capture it if its path is wanted. */
  const beginValue = (index: number): void => {
    if (capturing !== undefined || wanted.size === 0 || stack.length === 0) return;
    if (stack.length > deepest) return;
    const key = pathKey(pathOf());
    if (!wanted.has(key)) return;
    capturing = key;
    captureDepth = stack.length;
    captureParts = [];
    captureBytes = 0;
    captureFrom = index;
    captureStart = chunkBase + index;
  };

  /** The captured value ended with the byte before `end` in `chunk`. */
  const endValue = (chunk: Uint8Array, end: number): void => {
    if (capturing === undefined || stack.length !== captureDepth) return;
    spans.set(capturing, [captureStart, chunkBase + end]);
    const last = chunk.subarray(captureFrom, end);
    captureBytes += last.length;
    if (captureBytes <= maxCapture) {
      captureParts.push(last);
      const bytes =
        captureParts.length === 1 ? captureParts[0]! : Buffer.concat(captureParts, captureBytes);
      captures.set(capturing, decoder.decode(bytes));
    }
    capturing = undefined;
    captureParts = [];
    captureFrom = -1;
  };

  /** A value (scalar or container) just ended: what may come next. */
  const afterValue = (): void => {
    const top = stack.at(-1);
    if (!top) {
      mode = Mode.Done;
      return;
    }
    if (!top.object) top.index += 1;
    mode = Mode.AfterValue;
  };

  const fail = (at: number): void => {
    mode = Mode.Invalid;
    errorAt = at;
  };

  /** Start a value at byte `byte` (index `index`); false when no value starts with it. */
  const startValue = (index: number, byte: number): boolean => {
    const kind: JsonRoot | undefined =
      byte === 0x7b
        ? "object"
        : byte === 0x5b
          ? "array"
          : byte === 0x22
            ? "string"
            : byte === 0x2d || isDigit(byte)
              ? "number"
              : LITERALS[byte]
                ? "literal"
                : undefined;
    if (kind === undefined) return false;
    root ??= kind;
    beginValue(index);
    switch (kind) {
      case "object":
      case "array":
        stack.push({ object: kind === "object", path: pathOf(), index: 0, key: undefined });
        mode = kind === "object" ? Mode.KeyOrEnd : Mode.ValueOrEnd;
        return true;
      case "string":
        inKey = false;
        mode = Mode.String;
        return true;
      case "number":
        numberPart =
          byte === 0x2d ? NumberPart.Minus : byte === 0x30 ? NumberPart.Zero : NumberPart.Integer;
        mode = Mode.Number;
        return true;
      case "literal":
        literal = LITERALS[byte];
        literalAt = 1;
        mode = Mode.Literal;
        return true;
    }
  };

  /** The number ends before `index`: whether it was a whole number. */
  const numberComplete = (): boolean =>
    numberPart === NumberPart.Zero ||
    numberPart === NumberPart.Integer ||
    numberPart === NumberPart.Fraction ||
    numberPart === NumberPart.ExponentDigits;

  const push = (chunk: Uint8Array): void => {
    if (mode === Mode.Invalid) return;
    const base = total;
    chunkBase = base;
    total += chunk.length;
    let index = 0;
    if (capturing !== undefined) captureFrom = 0;
    while (index < chunk.length) {
      const byte = chunk[index]!;
      switch (mode) {
        case Mode.String: {
          // The bulk of any JSON text: run through plain bytes without leaving the loop.
          if (utf8Needed > 0) {
            if (byte < utf8Low || byte > utf8High) {
              fail(base + index);
              return;
            }
            utf8Low = 0x80;
            utf8High = 0xbf;
            utf8Needed -= 1;
            if (inKey && keyBytes.length < 256) keyBytes.push(byte);
            break;
          }
          if (byte === 0x22) {
            if (inKey) {
              const top = stack.at(-1)!;
              top.key =
                keyBytes.length >= 256
                  ? undefined
                  : (JSON.parse(`"${decoder.decode(Uint8Array.from(keyBytes))}"`) as string);
              if (stack.length === 1 && top.key !== undefined && keys.length < 64) {
                keys.push(top.key);
              }
              mode = Mode.Colon;
            } else {
              endValue(chunk, index + 1);
              afterValue();
            }
            break;
          }
          if (byte === 0x5c) {
            if (inKey && keyBytes.length < 256) keyBytes.push(byte);
            mode = Mode.Escape;
            break;
          }
          if (byte < 0x20) {
            fail(base + index);
            return;
          }
          if (byte >= 0x80) {
            if (byte >= 0xc2 && byte <= 0xdf) utf8Needed = 1;
            else if (byte >= 0xe0 && byte <= 0xef) {
              utf8Needed = 2;
              if (byte === 0xe0) utf8Low = 0xa0;
              if (byte === 0xed) utf8High = 0x9f;
            } else if (byte >= 0xf0 && byte <= 0xf4) {
              utf8Needed = 3;
              if (byte === 0xf0) utf8Low = 0x90;
              if (byte === 0xf4) utf8High = 0x8f;
            } else {
              fail(base + index);
              return;
            }
          }
          if (inKey && keyBytes.length < 256) keyBytes.push(byte);
          break;
        }
        case Mode.Escape:
          if (inKey && keyBytes.length < 256) keyBytes.push(byte);
          if (byte === 0x75) {
            hexLeft = 4;
            mode = Mode.Unicode;
          } else if (
            byte === 0x22 ||
            byte === 0x5c ||
            byte === 0x2f ||
            byte === 0x62 ||
            byte === 0x66 ||
            byte === 0x6e ||
            byte === 0x72 ||
            byte === 0x74
          ) {
            mode = Mode.String;
          } else {
            fail(base + index);
            return;
          }
          break;
        case Mode.Unicode:
          if (!isHex(byte)) {
            fail(base + index);
            return;
          }
          if (inKey && keyBytes.length < 256) keyBytes.push(byte);
          hexLeft -= 1;
          if (hexLeft === 0) mode = Mode.String;
          break;
        case Mode.Number: {
          const digit = isDigit(byte);
          switch (numberPart) {
            case NumberPart.Minus:
              if (!digit) {
                fail(base + index);
                return;
              }
              numberPart = byte === 0x30 ? NumberPart.Zero : NumberPart.Integer;
              index += 1;
              continue;
            case NumberPart.Dot:
              if (!digit) {
                fail(base + index);
                return;
              }
              numberPart = NumberPart.Fraction;
              index += 1;
              continue;
            case NumberPart.Exponent:
              if (byte === 0x2b || byte === 0x2d) numberPart = NumberPart.ExponentSign;
              else if (digit) numberPart = NumberPart.ExponentDigits;
              else {
                fail(base + index);
                return;
              }
              index += 1;
              continue;
            case NumberPart.ExponentSign:
              if (!digit) {
                fail(base + index);
                return;
              }
              numberPart = NumberPart.ExponentDigits;
              index += 1;
              continue;
            default:
              break;
          }
          if (digit && numberPart !== NumberPart.Zero) {
            index += 1;
            continue;
          }
          if (
            byte === 0x2e &&
            (numberPart === NumberPart.Zero || numberPart === NumberPart.Integer)
          ) {
            numberPart = NumberPart.Dot;
            index += 1;
            continue;
          }
          if ((byte === 0x65 || byte === 0x45) && numberPart !== NumberPart.ExponentDigits) {
            numberPart = NumberPart.Exponent;
            index += 1;
            continue;
          }
          // The number ended before this byte, which is looked at again as what follows it.
          endValue(chunk, index);
          afterValue();
          continue;
        }
        case Mode.Literal:
          if (byte !== literal![literalAt]) {
            fail(base + index);
            return;
          }
          literalAt += 1;
          if (literalAt === literal!.length) {
            endValue(chunk, index + 1);
            afterValue();
          }
          break;
        case Mode.Value:
        case Mode.ValueOrEnd:
          if (isWhitespace(byte)) break;
          if (
            base + index === bomAt &&
            bomAt < 3 &&
            byte === [0xef, 0xbb, 0xbf][bomAt] &&
            root === undefined &&
            stack.length === 0
          ) {
            bomAt += 1;
            break;
          }
          if (bomAt > 0 && bomAt < 3) {
            fail(base + index);
            return;
          }
          if (mode === Mode.ValueOrEnd && byte === 0x5d) {
            closeContainer(chunk, index);
            break;
          }
          if (!startValue(index, byte)) {
            fail(base + index);
            return;
          }
          break;
        case Mode.KeyOrEnd:
        case Mode.Key:
          if (isWhitespace(byte)) break;
          if (mode === Mode.KeyOrEnd && byte === 0x7d) {
            closeContainer(chunk, index);
            break;
          }
          if (byte !== 0x22) {
            fail(base + index);
            return;
          }
          inKey = true;
          keyBytes = [];
          mode = Mode.String;
          break;
        case Mode.Colon:
          if (isWhitespace(byte)) break;
          if (byte !== 0x3a) {
            fail(base + index);
            return;
          }
          mode = Mode.Value;
          break;
        case Mode.AfterValue: {
          if (isWhitespace(byte)) break;
          const top = stack.at(-1)!;
          if (byte === 0x2c) {
            mode = top.object ? Mode.Key : Mode.Value;
            if (top.object) top.key = undefined;
            break;
          }
          if (byte === (top.object ? 0x7d : 0x5d)) {
            closeContainer(chunk, index);
            break;
          }
          fail(base + index);
          return;
        }
        case Mode.Done:
          if (!isWhitespace(byte)) {
            fail(base + index);
            return;
          }
          break;
      }
      index += 1;
    }
    if (capturing !== undefined && captureFrom >= 0) {
      const part = chunk.subarray(captureFrom);
      captureBytes += part.length;
      if (captureBytes <= maxCapture) captureParts.push(Uint8Array.from(part));
    }
  };

  function closeContainer(chunk: Uint8Array, index: number): void {
    stack.pop();
    endValue(chunk, index + 1);
    afterValue();
  }

  return {
    push,
    result() {
      let status: ScanStatus;
      if (mode === Mode.Invalid) status = "invalid";
      else if (mode === Mode.Done) status = "complete";
      else if (mode === Mode.Number && stack.length === 0 && numberComplete()) status = "complete";
      else status = "truncated";
      return {
        status,
        root,
        captures,
        spans,
        keys,
        bytes: total,
        ...(errorAt === undefined ? {} : { errorAt }),
      };
    },
  };
}

/** Scan one whole text at once (see {@link createJsonScanner}). */
export function scanJson(bytes: Uint8Array, options: JsonScannerOptions = {}): ScanResult {
  const scanner = createJsonScanner(options);
  scanner.push(bytes);
  return scanner.result();
}
