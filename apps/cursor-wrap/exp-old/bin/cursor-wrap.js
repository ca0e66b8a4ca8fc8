#!/usr/bin/env node
// CommonJS (bin/package.json), as are the CLI's chunks: Node 20 can reuse their compiled code
// between runs only so (src/compile-cache.ts; Node 22.1+ caches with its own). P6, BENCHMARKS.md.
const { join } = require("node:path");

require("../dist/compile-cache.cjs").enableCompileCache({ root: join(__dirname, "..", "dist") });
require("../dist/cli.cjs").main(process.argv);
