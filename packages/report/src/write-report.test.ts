import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { completedRun } from "./__fixtures__/runs.js";
import { writeRun } from "./__fixtures__/write-run.js";
import { buildReport, createReportBuilder } from "./report-builder.js";
import { ReportWriteError, writeReportFile } from "./write-report.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "report-write-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("writeReportFile", () => {
  it("replaces the document whole, leaving nothing beside it, readable by its owner only", () => {
    const path = join(dir, "report.json");
    writeReportFile(path, createReportBuilder().report());
    expect(JSON.parse(readFileSync(path, "utf8"))).toMatchObject({ outcome: "running" });
    const finished = buildReport(writeRun(completedRun));
    writeReportFile(path, finished);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual(finished);
    expect(readdirSync(dir)).toEqual(["report.json"]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("throws a typed error naming the file when it cannot be written, and leaves no scrap", () => {
    const path = join(dir, "missing", "report.json");
    let thrown: unknown;
    try {
      writeReportFile(path, createReportBuilder().report());
    } catch (error) {
      thrown = error;
    }
    expect(ReportWriteError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code: "REPORT_UNWRITABLE", path, reason: "ENOENT" });
    expect(readdirSync(dir)).toEqual([]);
  });
});
