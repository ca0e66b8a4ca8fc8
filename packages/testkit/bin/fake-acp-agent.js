#!/usr/bin/env node
// The `fake-acp-agent` command. It imports the built code rather than being it, so
// the command exists as soon as the package is installed (here: before the first build).
await import("../dist/fake-acp-agent.js");
