// What a run hands to those who operate it: the run report (`--report`, and GitHub's job
// summary and annotations), an OpenTelemetry trace (`--otel`) and notifications
// (`--on-verdict`, `--notify`). All of it is made from the session log's records through the
// log's tap, so the turn loop knows nothing of it; with everything off there is no tap at all.

import { appendFileSync } from "node:fs";
import { hostname } from "node:os";
import { resolve } from "node:path";
import type { RecordTap, SessionLog } from "@cursor-wrap/logger";
import type { DeliveryResult, NotificationSource, Notifier } from "@cursor-wrap/notify";
import {
  endpointOrigin,
  openRunTrace,
  type RunTrace,
  tracesEndpoint,
  tracesEndpointProblem,
  tracesProtocolWarning,
  tracesRequested,
} from "@cursor-wrap/otel";
import type { ReportBuilder } from "@cursor-wrap/report";
import type { RunOptions } from "../options/run-options.js";
import { printError } from "../print-error.js";
import { VERSION } from "../version.js";

/** The options that switch operations on. */
export type OperationOptions = Pick<
  RunOptions,
  | "reportFile"
  | "reportFormat"
  | "otel"
  | "onVerdict"
  | "onVerdictEvents"
  | "notifyUrl"
  | "notifyTimeoutMs"
>;

/** Where operations write what is not a record. */
export interface OperationIo {
  /** The wrapper's stderr: GitHub annotations, and failures once the log is closed. */
  stderr: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
  /** Process hooks, for a report written even when the process exits without the log closed. */
  process?: Pick<NodeJS.Process, "on" | "off">;
}

/** The operations of one run, switched on by its options. */
export interface RunOperations {
  /** The session log's tap. */
  onRecord: RecordTap;
  /** Variables the agent gets: its trace context (`TRACEPARENT`), when the run traces. */
  agentEnv(): Record<string, string>;
  /** The log is open: results of notifications and export failures are written into it. */
  attach(log: Pick<SessionLog, "decision">): void;
  /**
   * After the log is closed: wait for the notifications under way and the trace's last export
   * (each bounded by its timeout), then let go of the process. `hurryMs`: wait no longer than
   * that (a signal asked the run to stop, and whoever sent it may SIGKILL soon): notifications
   * still under way are then ended (a command killed) and the export given up.
   */
  finish(hurryMs?: number): Promise<void>;
}

/** Whether the report is also shown as GitHub Actions shows it. */
function githubFormat(options: OperationOptions, env: NodeJS.ProcessEnv): boolean {
  if (options.reportFormat === "github") return true;
  return options.reportFormat === "auto" && env.GITHUB_ACTIONS === "true";
}

/**
 * The operations the options ask for, or undefined when none is: then the log has no tap and
 * nothing here is loaded beyond this module (the report and notifications only when asked
 * for, the trace's SDK only when a run traces).
 */
export async function openRunOperations(
  options: OperationOptions,
  io: OperationIo,
): Promise<RunOperations | undefined> {
  const { env } = io;
  const github = githubFormat(options, env);
  const traces = tracesRequested(env, options.otel);
  const notifying = options.onVerdict !== undefined || options.notifyUrl !== undefined;
  if (options.reportFile === undefined && !github && !traces && !notifying) return undefined;
  // Loaded only now: a run that asks for none of it does not pay for their load at start-up.
  const [
    { createReportBuilder, githubAnnotations, githubSummary, writeReportFile },
    { ciRunUrl, createNotificationSource, createNotifier, webhookTarget },
  ] = await Promise.all([import("@cursor-wrap/report"), import("@cursor-wrap/notify")]);

  const tool = { name: "cursor-wrap", version: VERSION };
  const reportPath = options.reportFile === undefined ? undefined : resolve(options.reportFile);
  let log: Pick<SessionLog, "decision"> | undefined;
  let logClosed = false;
  /** A line in the log while it is open, else (once it is closed) a warning on stderr. */
  const tell = (message: string, fields: Record<string, unknown>, line: string): void => {
    if (log && !logClosed) {
      try {
        log.decision(message, fields, "warn");
        return;
      } catch {
        // A log that cannot take it: say it on stderr instead.
      }
    }
    printError(io.stderr, `warning: ${line}`);
  };

  // The report: kept up to date from the records, written at each attempt's end (so a run
  // killed outright still leaves one) and at the end of the run, whatever ended it.
  const report: ReportBuilder | undefined =
    reportPath !== undefined || github ? createReportBuilder({ tool }) : undefined;
  let reportFailed = false;
  const writeReport = (): void => {
    if (!report || reportPath === undefined) return;
    try {
      writeReportFile(reportPath, report.report());
    } catch (error) {
      // Said once: a directory that is missing at the start is missing at every turn.
      if (reportFailed) return;
      reportFailed = true;
      tell(
        "report_write_failed",
        { path: reportPath, summary: error instanceof Error ? error.message : String(error) },
        `could not write the report: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };
  // Nothing the agent prints may run a workflow command: they are off until the run's end,
  // when cursor-wrap's own annotations are written (escaped as well).
  // Unguessable (crypto, loaded only here: a run outside GitHub does not pay for it).
  const stopToken = github
    ? `cursor-wrap-${(await import("node:crypto")).randomUUID()}`
    : undefined;
  if (stopToken) io.stderr.write(`::stop-commands::${stopToken}\n`);
  let githubDone = false;
  const writeGithub = (): void => {
    if (!report || !github || githubDone) return;
    githubDone = true;
    const current = report.report();
    if (env.GITHUB_STEP_SUMMARY) {
      try {
        appendFileSync(env.GITHUB_STEP_SUMMARY, `${githubSummary(current)}\n`);
      } catch (error) {
        printError(
          io.stderr,
          `warning: could not write the job summary: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
    io.stderr.write(`::${stopToken}::\n`);
    for (const line of githubAnnotations(current)) io.stderr.write(`${line}\n`);
  };

  // Notifications, sent as the records that make them are written.
  let source: NotificationSource | undefined;
  let notifier: Notifier | undefined;
  if (notifying) {
    source = createNotificationSource({
      tool,
      host: hostname(),
      ...(reportPath === undefined ? {} : { reportPath }),
      ...(ciRunUrl(env) === undefined ? {} : { runUrl: ciRunUrl(env)! }),
    });
    notifier = createNotifier({
      ...(options.onVerdict === undefined ? {} : { command: options.onVerdict }),
      ...(options.notifyUrl === undefined ? {} : { url: options.notifyUrl }),
      events: new Set(options.onVerdictEvents),
      timeoutMs: options.notifyTimeoutMs,
      env,
      userAgent: `cursor-wrap/${VERSION}`,
      onResult: (result: DeliveryResult) => {
        if (result.ok) {
          if (log && !logClosed) log.decision("notify_sent", { ...result }, "info");
          return;
        }
        tell(
          "notify_failed",
          { ...result },
          `the ${result.event} notification (${result.channel} ${result.target}) failed: ${
            result.timed_out ? "timed out" : (result.error ?? `exit ${result.code}`)
          }`,
        );
      },
    });
  }

  let trace: RunTrace | undefined;
  let exportFailed = false;
  // A variable set for the whole job, for other tools, must not stop the run: a word, no trace.
  const endpointProblem = traces ? tracesEndpointProblem(env) : undefined;
  if (endpointProblem !== undefined) printError(io.stderr, `warning: ${endpointProblem}`);
  const protocolWarning =
    traces && endpointProblem === undefined ? tracesProtocolWarning(env) : undefined;
  if (protocolWarning !== undefined) printError(io.stderr, `warning: ${protocolWarning}`);
  if (traces && endpointProblem === undefined) {
    trace = await openRunTrace({
      env,
      tool,
      onExportError: (error) => {
        // Once is enough: a collector that is down fails every batch the same way.
        if (exportFailed) return;
        exportFailed = true;
        tell(
          "otel_export_failed",
          { endpoint: endpointOrigin(tracesEndpoint(env)), summary: error.message },
          `could not export the trace to ${endpointOrigin(tracesEndpoint(env))}: ${error.message}`,
        );
      },
    });
  }

  // A process that exits without closing the log (a second Ctrl+C) still leaves its report.
  const onExit = (code: number): void => {
    if (report && !report.finished) {
      report.end(code, "interrupted");
      writeReport();
      writeGithub();
    }
    notifier?.dispose();
  };
  const hooks = io.process ?? process;
  hooks.on("exit", onExit);

  return {
    onRecord(message, record) {
      if (report) {
        report.record(message, record);
        if (message === "session_start" || message === "turn_end") writeReport();
      }
      trace?.record(message, record);
      if (source && notifier) {
        for (const notification of source.record(message, record)) notifier.send(notification);
      }
      if (message === "session_end") {
        logClosed = true;
        writeReport();
        writeGithub();
      }
    },
    agentEnv: () => trace?.agentEnv() ?? {},
    attach(sessionLog) {
      log = sessionLog;
      log.decision(
        "operations",
        {
          report: reportPath ?? null,
          report_format: github ? "github" : "json",
          otel: trace
            ? { endpoint: endpointOrigin(tracesEndpoint(env)), trace_id: trace.traceId }
            : null,
          // The program alone: its arguments may carry a token; a webhook's path is a secret.
          on_verdict: options.onVerdict?.[0] ?? null,
          notify: options.notifyUrl === undefined ? null : webhookTarget(options.notifyUrl),
          events: notifying ? options.onVerdictEvents : null,
        },
        "debug",
      );
    },
    async finish(hurryMs) {
      logClosed = true;
      let exported = false;
      const settled = Promise.all([
        notifier?.settle(),
        trace?.shutdown().then(() => {
          exported = true;
        }),
      ]);
      if (hurryMs === undefined) await settled;
      else {
        let timer: NodeJS.Timeout | undefined;
        const hurried = await Promise.race([
          settled.then(() => false),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(true), hurryMs);
          }),
        ]);
        clearTimeout(timer);
        if (hurried) notifier?.dispose();
        // Cut short to stop in time: an export still under way is a failed one, said once.
        if (hurried && trace && !exported && !exportFailed) {
          exportFailed = true;
          const origin = endpointOrigin(tracesEndpoint(env));
          tell(
            "otel_export_failed",
            { endpoint: origin, summary: `not done within ${hurryMs} ms of the stop` },
            `could not export the trace to ${origin}: not done within ${hurryMs} ms of the stop (the collector did not answer in time)`,
          );
        }
      }
      hooks.off("exit", onExit);
    },
  };
}
