#!/usr/bin/env node
// The demo's fake MCP server (its tool `hang` never answers), built into the CLI's own files
// (dist/demo-mcp-server.cjs) like the demo's fake agent.
import "@cursor-wrap/testkit/fake-mcp-server";
