import { describe, expect, it } from "vitest";
import {
  endpointOrigin,
  tracesEndpoint,
  tracesEndpointProblem,
  tracesProtocolWarning,
  tracesRequested,
} from "./traces-requested.js";

describe("tracesRequested", () => {
  it.each([
    [{}, false, false],
    [{}, true, true],
    [{ OTEL_TRACES_EXPORTER: "otlp" }, false, true],
    [{ OTEL_TRACES_EXPORTER: "console, otlp" }, false, true],
    [{ OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }, false, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }, false, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:4318/v1/traces" }, false, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: " " }, false, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "TRUE" }, false, false],
    [{ OTEL_SDK_DISABLED: "true" }, true, true],
  ])("%j with --otel=%s: %s", (env, flag, expected) => {
    expect(tracesRequested(env, flag)).toBe(expected);
  });
});

describe("tracesEndpoint", () => {
  it("follows OTLP/HTTP's rules for the traces URL", () => {
    expect(tracesEndpoint({})).toBe("http://localhost:4318/v1/traces");
    expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://c.example/otlp/" })).toBe(
      "https://c.example/otlp/v1/traces",
    );
    expect(
      tracesEndpoint({
        OTEL_EXPORTER_OTLP_ENDPOINT: "https://c.example",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://t.example/in",
      }),
    ).toBe("https://t.example/in");
  });

  it("names only an endpoint's origin, never its path or query", () => {
    expect(endpointOrigin("https://user:pw@c.example:4318/v1/traces?token=s3cret")).toBe(
      "https://c.example:4318",
    );
    expect(endpointOrigin("not a url")).toBe("(not a URL)");
    expect(endpointOrigin("localhost:4318/v1/traces")).toBe("(not an http URL)");
  });
});

describe("tracesEndpointProblem and tracesProtocolWarning", () => {
  it.each([
    [{}, undefined],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" }, undefined],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://c.example/in?key=s3cret" }, undefined],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "127.0.0.1:4318" }, "OTEL_EXPORTER_OTLP_ENDPOINT is not"],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "localhost:4318" }, "OTEL_EXPORTER_OTLP_ENDPOINT is not"],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://[::1" }, "OTEL_EXPORTER_OTLP_ENDPOINT is not"],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "x" },
      "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is not",
    ],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "ftp://c.example/s3cret" },
      "OTEL_EXPORTER_OTLP_ENDPOINT is not",
    ],
  ])("%j: %s", (env, expected) => {
    const problem = tracesEndpointProblem(env);
    if (expected === undefined) expect(problem).toBeUndefined();
    else {
      expect(problem).toContain(expected);
      // The value may hold a token: never said.
      expect(problem).not.toContain("s3cret");
      expect(problem).not.toContain("4318/");
    }
  });

  it("says a word for gRPC, none for HTTP", () => {
    expect(tracesProtocolWarning({})).toBeUndefined();
    expect(tracesProtocolWarning({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" })).toBeUndefined();
    expect(tracesProtocolWarning({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" })).toBeUndefined();
    expect(
      tracesProtocolWarning({
        OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c.example:4317/p?k=s3cret",
      }),
    ).toBe(
      'OTEL_EXPORTER_OTLP_PROTOCOL="grpc" is not spoken here: the trace goes as OTLP over HTTP (JSON) to http://c.example:4317 (a collector\'s HTTP port, 4318, takes it)',
    );
    expect(
      tracesProtocolWarning({
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "GRPC",
      }),
    ).toContain("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=");
  });
});
