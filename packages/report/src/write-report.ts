import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { CursorWrapError } from "@cursor-wrap/errors";
import type { RunReport } from "./run-report.js";

/** The report file could not be written. */
export class ReportWriteError extends CursorWrapError {
  static override readonly marker: string = "cursor-wrap.error.report-write";
  /** The report's path. */
  readonly path: string;
  /** The system error code (`ENOENT`, `EACCES`, `ENOSPC`, …). */
  readonly reason: string | undefined;

  constructor(path: string, cause: NodeJS.ErrnoException) {
    super(
      "REPORT_UNWRITABLE",
      `cannot write the run report to ${path}: ${cause.code ?? cause.message}`,
      { cause },
    );
    this.path = path;
    this.reason = cause.code;
  }
}

/**
 * Write `report` to `path` whole or not at all: into a file beside it, flushed to disk, then
 * renamed over it. A reader (or a crash) sees the previous document or the new one, never half
 * of one. Throws {@link ReportWriteError}.
 */
export function writeReportFile(path: string, report: RunReport): void {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    const fd = openSync(temporary, "w", 0o600);
    try {
      writeSync(fd, `${JSON.stringify(report, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // never created, or already renamed
    }
    throw new ReportWriteError(path, error as NodeJS.ErrnoException);
  }
}
