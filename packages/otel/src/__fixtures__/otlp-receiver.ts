// A local OTLP/HTTP receiver for the tests: it takes what an exporter POSTs to /v1/traces,
// decodes the OTLP JSON, and hands back the spans with their attributes read out.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** An OTLP attribute value as the JSON encoding writes it. */
interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}

interface OtlpKeyValue {
  key: string;
  value: AnyValue;
}

/** A span as received, its attributes as a plain object. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  startMs: number;
  endMs: number;
  attributes: Record<string, string | number | boolean>;
  events: { name: string; attributes: Record<string, string | number | boolean> }[];
  status: { code: number; message?: string };
  resource: Record<string, string | number | boolean>;
  scope: string;
}

function plainValue(value: AnyValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  return JSON.stringify(value);
}

function attributesOf(list: OtlpKeyValue[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, plainValue(value)]));
}

/** The receiver: its endpoint, what it got, and a way to wait for it. */
export interface OtlpReceiver {
  endpoint: string;
  spans: ReceivedSpan[];
  /** Content types of the requests received. */
  contentTypes: string[];
  /** Resolves once `predicate` holds for the spans received. */
  waitFor(predicate: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]>;
  /** Answer every request with this status from now on (to test failures). */
  failWith(status: number): void;
  close(): Promise<void>;
}

/** Start a receiver on a free local port. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const waiters: { predicate: (spans: ReceivedSpan[]) => boolean; resolve: () => void }[] = [];
  let status = 200;
  const wake = (): void => {
    for (const waiter of [...waiters]) {
      if (waiter.predicate(spans)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      contentTypes.push(String(request.headers["content-type"]));
      if (status !== 200 || request.url !== "/v1/traces") {
        response.writeHead(status === 200 ? 404 : status).end();
        return;
      }
      if (!String(request.headers["content-type"]).startsWith("application/json")) {
        response.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        resourceSpans: {
          resource?: { attributes?: OtlpKeyValue[] };
          scopeSpans: {
            scope?: { name?: string };
            spans: {
              traceId: string;
              spanId: string;
              parentSpanId?: string;
              name: string;
              kind: number;
              startTimeUnixNano: string;
              endTimeUnixNano: string;
              attributes?: OtlpKeyValue[];
              events?: { name: string; attributes?: OtlpKeyValue[] }[];
              status?: { code?: number; message?: string };
            }[];
          }[];
        }[];
      };
      for (const resourceSpans of body.resourceSpans) {
        const resource = attributesOf(resourceSpans.resource?.attributes);
        for (const scopeSpans of resourceSpans.scopeSpans) {
          for (const span of scopeSpans.spans) {
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId || undefined,
              name: span.name,
              kind: span.kind,
              startMs: Number(BigInt(span.startTimeUnixNano) / 1_000_000n),
              endMs: Number(BigInt(span.endTimeUnixNano) / 1_000_000n),
              attributes: attributesOf(span.attributes),
              events: (span.events ?? []).map((event) => ({
                name: event.name,
                attributes: attributesOf(event.attributes),
              })),
              status: { code: span.status?.code ?? 0, message: span.status?.message },
              resource,
              scope: scopeSpans.scope?.name ?? "",
            });
          }
        }
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
      wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}/v1/traces`,
    spans,
    contentTypes,
    waitFor(predicate) {
      return new Promise((resolve) => {
        const waiter = { predicate, resolve: () => resolve(spans) };
        waiters.push(waiter);
        wake();
      });
    },
    failWith(code) {
      status = code;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
