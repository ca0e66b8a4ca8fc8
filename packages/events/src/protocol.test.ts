import { describe, expect, it } from "vitest";
import { parseLine } from "./parse-line.js";
import {
  isSupportedProtocolVersion,
  protocolVersionOf,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "./protocol.js";
import { schemaNameFor, schemas } from "./schemas.js";

describe("protocolVersionOf", () => {
  it.each([
    ['{"type":"protocol","data":{"version":"1.0"}}', "1.0"],
    ['{"type":"protocol","data":{"version":"2.0"}}', "2.0"],
    ['{"type":"protocol","data":{"version":1}}', "1.0"],
    ['{"type":"protocol","data":{"version":1.1}}', "1.1"],
    ['{"type":"protocol","data":{}}', undefined],
    ['{"type":"protocol","data":"1.0"}', undefined],
    ['{"type":"protocol"}', undefined],
    ['{"type":"system","subtype":"init","session_id":"s"}', undefined],
    ["protocol 1.0", undefined],
  ])("%s → %s", (line, version) => {
    expect(protocolVersionOf(parseLine(line))).toBe(version);
  });

  it("supports the adapter contract's version 1.0 only", () => {
    expect(SUPPORTED_PROTOCOL_VERSIONS).toEqual(["1.0"]);
    expect(isSupportedProtocolVersion("1.0")).toBe(true);
    expect(isSupportedProtocolVersion("2.0")).toBe(false);
  });

  it("has a schema", () => {
    const event = { type: "protocol", data: { version: "1.0" } };
    expect(schemaNameFor("protocol", undefined)).toBe("Protocol");
    expect(schemas.Protocol.safeParse(event).success).toBe(true);
  });
});
