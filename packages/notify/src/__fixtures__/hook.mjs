// A notification hook for the tests: `node hook.mjs <mode> <out-file>` appends what it was given
// (stdin, its CURSOR_WRAP_* variables, its pid) to <out-file> as one JSON line, then:
// ok: exits 0; fail: prints to stdout and stderr and exits 3; hang: starts a child that also
// never ends (same process group), writes its pid, and never exits (nor reads its stdin).
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";

const [mode, out] = process.argv.slice(2);
const variables = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => name.startsWith("CURSOR_WRAP_")),
);
if (mode === "hang") {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  appendFileSync(
    out,
    `${JSON.stringify({ mode, pid: process.pid, child: child.pid, variables })}\n`,
  );
  setInterval(() => {}, 1000);
} else {
  let stdin = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => {
    stdin += chunk;
  });
  process.stdin.on("end", () => {
    appendFileSync(out, `${JSON.stringify({ mode, pid: process.pid, stdin, variables })}\n`);
    if (mode === "fail") {
      process.stdout.write("token ghp_abcdefghijklmnopqrstuvwxyz0123456789 rejected\n");
      process.stderr.write("giving up\n");
      process.exit(3);
    }
  });
}
