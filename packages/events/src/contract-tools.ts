import type { ContractErrorSource } from "./contract-errors.js";
import type { ToolCallInfo } from "./tool-call.js";
import type { JsonObject } from "./types.js";
import { isObject, stringAt } from "./values.js";

/**
 * A tool a turn allows (the contract's `tools` entry): by canonical name (see
 * {@link canonicalToolName}), with an optional check of its arguments.
 */
export interface ContractTool {
  /** Canonical name: `shell`, `read`, `edit`, …, `mcp/<server>/<tool>` (or a prefix: `mcp`, `mcp/<server>`). */
  name: string;
  /**
   * Checks a call's arguments (`ToolCallInfo.args`): undefined when they are valid, else one
   * line saying why not. `@cursor-wrap/run`'s turn input builds it from the tool's JSON Schema.
   */
  validate?: (args: JsonObject) => string | undefined;
}

/** A tool call the turn's tools do not allow. */
export interface ToolViolation {
  source: Extract<ContractErrorSource, "tool-not-allowed" | "tool-args-invalid">;
  /** The call's canonical name. */
  name: string;
  /** One line for people. */
  message: string;
}

/**
 * The canonical name of a tool call, the name an allow-list uses: the tool's kind as the events
 * package reads it (`shell`, `read`, `ls`, `grep`, `glob`, `edit`, `write`, `delete`, `webFetch`,
 * `webSearch`, `task`, `updateTodos`, …; an unknown `<name>ToolCall` key is `<name>`), an MCP
 * call `mcp/<server>/<tool>` (`mcp` when the event does not name both), and a call in the
 * generic `function` shape its function's name.
 */
export function canonicalToolName(info: Pick<ToolCallInfo, "kind" | "mcp" | "args">): string {
  if (info.kind === "mcp") {
    const provider = info.mcp?.provider;
    const tool = info.mcp?.tool;
    return provider && tool ? `mcp/${provider}/${tool}` : "mcp";
  }
  if (info.kind === "function") return stringAt(info.args, "name") || "function";
  return info.kind;
}

/**
 * The arguments a call was made with: the `args` object of its tool key, or, for the generic
 * `function` shape, its `arguments` text parsed (an object, else empty).
 */
export function toolCallArgs(info: Pick<ToolCallInfo, "kind" | "args">): JsonObject {
  if (info.kind !== "function") return info.args;
  const text = stringAt(info.args, "arguments");
  if (text === undefined) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/**
 * The entry of `tools` that allows `name`: the same name, else (for MCP) the longest prefix of
 * it at a `/` (`mcp/github` allows every tool of that server, `mcp` every MCP tool).
 */
export function allowingTool(
  name: string,
  tools: readonly ContractTool[],
): ContractTool | undefined {
  let found: ContractTool | undefined;
  for (const tool of tools) {
    if (tool.name === name) return tool;
    if (name.startsWith(`${tool.name}/`) && (!found || tool.name.length > found.name.length)) {
      found = tool;
    }
  }
  return found;
}

/**
 * Whether a tool call is allowed by the turn's `tools`: undefined when it is, else why not
 * (its name is not in the list, or its arguments fail the tool's check). A check that throws
 * counts as a failed check.
 */
export function checkToolCall(
  info: Pick<ToolCallInfo, "kind" | "mcp" | "args">,
  tools: readonly ContractTool[],
): ToolViolation | undefined {
  const name = canonicalToolName(info);
  const tool = allowingTool(name, tools);
  if (!tool) {
    const allowed = tools.length === 0 ? "none" : tools.map((entry) => entry.name).join(", ");
    return {
      source: "tool-not-allowed",
      name,
      message: `the agent called ${JSON.stringify(name)}, which the turn does not allow (allowed: ${allowed})`,
    };
  }
  if (!tool.validate) return undefined;
  let why: string | undefined;
  try {
    why = tool.validate(toolCallArgs(info));
  } catch (error) {
    why = error instanceof Error ? error.message : String(error);
  }
  return why === undefined
    ? undefined
    : {
        source: "tool-args-invalid",
        name,
        message: `the agent called ${JSON.stringify(name)} with arguments its schema does not allow: ${why}`,
      };
}
