import { describe, expect, it } from "vitest";
import { endpointOrigin, tracesEndpoint, tracesRequested } from "./traces-requested.js";

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
  });
});
