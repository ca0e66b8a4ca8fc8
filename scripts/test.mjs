// `pnpm test`: build everything once, then run the CLI's tests beside the libraries' tests.
//
// The CLI's suite is the longest (its end-to-end tests run the built binary) and it becomes
// ready last, behind the CLI's build; turbo starts ready tasks first come, first served, so
// under one `turbo run test` it waited for every library's tests to finish and the suite took
// the sum of the two. Two turbo runs side by side take the longer of the two instead: the
// libraries' tests one package at a time, the CLI's on their own. Both run to the end (one
// failure does not hide another); the exit code fails if either failed.

import { spawn, spawnSync } from "node:child_process";

const turbo = process.platform === "win32" ? "turbo.cmd" : "turbo";
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: "1" };
const extra = process.argv.slice(2);

const build = spawnSync(turbo, ["run", "build", "--output-logs=errors-only"], {
  stdio: "inherit",
  env,
});
if (build.status !== 0) process.exit(build.status ?? 1);

/** One turbo run of the tests; resolves to its exit code. */
function runTests(args) {
  return new Promise((resolve) => {
    const child = spawn(turbo, ["run", "test", "--only", "--continue", ...args, ...extra], {
      stdio: "inherit",
      env,
    });
    child.once("error", (error) => {
      console.error(`could not start turbo: ${error.message}`);
      resolve(1);
    });
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const [cli, libraries] = await Promise.all([
  runTests(["--filter=cursor-wrap"]),
  runTests(["--filter=!cursor-wrap", "--concurrency=1"]),
]);
if (cli !== 0 || libraries !== 0) {
  console.error(
    `tests failed: ${[cli !== 0 && "the CLI's", libraries !== 0 && "the libraries'"].filter(Boolean).join(" and ")}`,
  );
  process.exit(1);
}
