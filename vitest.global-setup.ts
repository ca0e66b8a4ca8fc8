import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Give the test run a HOME of its own before any test file loads: test workers and every
 * process they start inherit it, so defaults such as `~/.cursor-wrap/logs` land in a
 * temporary directory that is removed afterwards.
 */
export default function setup(): () => void {
  const home = mkdtempSync(join(tmpdir(), "cursor-wrap-test-home-"));
  const realHome = process.env.HOME;
  process.env.HOME = home;
  process.env.CURSOR_WRAP_TEST_HOME = home;
  return () => {
    process.env.HOME = realHome;
    rmSync(home, { recursive: true, force: true });
  };
}
