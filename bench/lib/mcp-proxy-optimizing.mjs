#!/usr/bin/env node
// @ts-check
// `cursor-wrap mcp proxy` as shipped except that V8's optimizing compiler stays on: the proxy
// turns it off for itself (`setFlagsFromString("--no-opt")`), and this shim makes that one call
// a no-op before the CLI loads, so the bench can weigh the trade. Usage: like the CLI.

import module, { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const v8 = require("node:v8");
const setFlags = v8.setFlagsFromString;
v8.setFlagsFromString = (flags) => {
  if (flags !== "--no-opt") setFlags(flags);
};
// ES modules that import { setFlagsFromString } from "node:v8" see the replacement too.
module.syncBuiltinESMExports();
const [cli, ...args] = process.argv.slice(2);
if (!cli) throw new Error("usage: mcp-proxy-optimizing.mjs <cursor-wrap.js> <args…>");
process.argv = [process.argv[0] ?? "node", cli, ...args];
await import(cli);
