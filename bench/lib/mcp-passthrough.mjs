// @ts-check
// The least a Node.js MCP proxy does: start the server, split the client's bytes into lines,
// parse each, and write it on; the server's output goes back untouched. No log, no deadlines.
// P7 measures its memory beside `cursor-wrap mcp proxy` under the same load, as the floor
// that Node itself sets for any proxy written in it.

import { spawn } from "node:child_process";

const [command, ...args] = process.argv.slice(2);
const server = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
let pending = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  pending += chunk;
  for (let newline = pending.indexOf("\n"); newline !== -1; newline = pending.indexOf("\n")) {
    const line = pending.slice(0, newline + 1);
    pending = pending.slice(newline + 1);
    JSON.parse(line);
    server.stdin.write(line);
  }
});
process.stdin.on("end", () => server.stdin.end());
server.stdout.pipe(process.stdout);
server.on("exit", (code) => process.exit(code ?? 1));
