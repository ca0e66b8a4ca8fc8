export type { LogRecord } from "@cursor-wrap/logger/record-fields";
export { ANNOTATIONS_PER_LEVEL, githubAnnotations, githubSummary } from "./github.js";
export { codeBlock, markdownText } from "./markdown.js";
export type { ReportBuilder, ReportBuilderOptions } from "./report-builder.js";
export {
  buildReport,
  createReportBuilder,
  DENIED_OUTCOMES,
} from "./report-builder.js";
export type {
  AttemptReport,
  FailureReport,
  InterruptionReport,
  ReportLimits,
  RunReport,
  TokenUsage,
  ToolCallReport,
  ToolCallsReport,
  ToolKindReport,
  VerdictReport,
} from "./run-report.js";
export {
  DEFAULT_REPORT_LIMITS,
  RUN_REPORT_SCHEMA_ID,
  RUN_REPORT_SCHEMA_VERSION,
} from "./run-report.js";
export { escapeData, escapeProperty, workflowCommand } from "./workflow-commands.js";
export { ReportWriteError, writeReportFile } from "./write-report.js";
