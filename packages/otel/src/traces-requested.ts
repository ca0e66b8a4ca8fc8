// Whether traces are asked for, read without loading any of OpenTelemetry: a run that does not
// trace must not pay for the SDK at start-up.

/** True for the values OpenTelemetry's SDKs read as a boolean true. */
function isTrue(value: string | undefined): boolean {
  return value?.trim().toLowerCase() === "true";
}

/**
 * Whether a run should export traces: `flag` (`--otel`), or the standard variables ask for them:
 * `OTEL_TRACES_EXPORTER` naming `otlp`, or an `OTEL_EXPORTER_OTLP_ENDPOINT` /
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` while `OTEL_TRACES_EXPORTER` does not say `none`.
 * `OTEL_SDK_DISABLED=true` turns off what the variables ask (not the flag, which is explicit).
 */
export function tracesRequested(
  env: Readonly<Record<string, string | undefined>>,
  flag = false,
): boolean {
  if (flag) return true;
  if (isTrue(env.OTEL_SDK_DISABLED)) return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  if (exporters.includes("none")) return false;
  if (exporters.includes("otlp")) return true;
  return Boolean(
    env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim(),
  );
}

/**
 * Where the traces go, as OTLP/HTTP's rules say: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as it is,
 * else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`, else `http://localhost:4318/v1/traces`.
 */
export function tracesEndpoint(env: Readonly<Record<string, string | undefined>>): string {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (base) return `${base.replace(/\/+$/, "")}/v1/traces`;
  return "http://localhost:4318/v1/traces";
}

/**
 * Why the traces cannot be exported to the endpoint the variables name, or undefined when it is
 * an http(s) URL. Said without the value, whose path or query may hold a token.
 */
export function tracesEndpointProblem(
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const variable = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()
    ? "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
    : env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()
      ? "OTEL_EXPORTER_OTLP_ENDPOINT"
      : undefined;
  if (variable === undefined) return undefined;
  let protocol: string | undefined;
  try {
    protocol = new URL(tracesEndpoint(env)).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol === "http:" || protocol === "https:") return undefined;
  return `${variable} is not an http:// or https:// URL (as in http://localhost:4318), so the trace is not exported`;
}

/**
 * A word for a protocol the variables ask for that the export does not speak: traces go as
 * OTLP over HTTP (JSON, which collectors take beside protobuf), never over gRPC.
 */
export function tracesProtocolWarning(
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const variable = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim()
    ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
    : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const protocol = env[variable]?.trim().toLowerCase();
  if (protocol === undefined || protocol === "" || protocol.startsWith("http/")) return undefined;
  return `${variable}=${JSON.stringify(protocol)} is not spoken here: the trace goes as OTLP over HTTP (JSON) to ${endpointOrigin(tracesEndpoint(env))} (a collector's HTTP port, 4318, takes it)`;
}

/** Only the scheme, host and port of an endpoint: its path or query may hold a token. */
export function endpointOrigin(endpoint: string): string {
  try {
    const { origin } = new URL(endpoint);
    // `localhost:4318` parses, as a URL of scheme `localhost:` with no origin ("null").
    return origin === "null" ? "(not an http URL)" : origin;
  } catch {
    return "(not a URL)";
  }
}
