#!/usr/bin/env node
import module from "node:module";

// Cache compiled code between runs where Node supports it (22.1+): faster start-up.
module.enableCompileCache?.();
const { main } = await import("../dist/cli.js");
await main(process.argv);
