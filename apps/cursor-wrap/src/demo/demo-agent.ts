#!/usr/bin/env node
// The demo's fake cursor-agent, built into the CLI's own files (dist/demo-agent.cjs), so `cursor-wrap
// demo` needs nothing installed beside the CLI: the test kit is a development dependency only.
import "@cursor-wrap/testkit/fake-cursor-agent";
