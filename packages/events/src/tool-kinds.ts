import type { JsonObject } from "./types.js";
import {
  arrayAt,
  booleanAt,
  compactJson,
  firstLine,
  firstString,
  isObject,
  numberAt,
  objectAt,
  stringAt,
  tail,
  truncate,
} from "./values.js";

/** What a tool's arguments say, for display and for the monitor. */
export interface ToolArgsSummary {
  /** One line per R-FMT3 (shell: first line of the command; edit: path; mcp: provider/tool …). */
  label: string;
  /** Timeout the call declared, ms. */
  timeoutMs?: number;
  /** The call runs in the background and returns at once. */
  background?: boolean;
  command?: string;
  path?: string;
  pattern?: string;
  directory?: string;
  url?: string;
  query?: string;
  mcp?: { provider?: string; tool?: string };
}

/** What a tool's `success` payload says. */
export interface ToolSuccessSummary {
  summary: string;
  /** False when the call "succeeded" but failed in substance (a shell with a non-zero exit). */
  ok?: boolean;
  exitCode?: number;
  signal?: string;
  stdoutTail?: string;
  stderrTail?: string;
  executionTimeMs?: number;
  lineCount?: number;
  matchCount?: number;
  fileCount?: number;
  linesAdded?: number;
  linesRemoved?: number;
  bytes?: number;
  error?: string;
}

/** How one tool key is read. */
export interface ToolKindSpec {
  /** Short kind used for thresholds and display: `shellToolCall` → `shell`. */
  kind: string;
  describe(args: JsonObject): ToolArgsSummary;
  summarize(success: JsonObject, args: JsonObject): ToolSuccessSummary;
}

const LABEL_MAX = 120;
const plural = (count: number, noun: string, nouns = `${noun}s`): string =>
  `${count} ${count === 1 ? noun : nouns}`;

function inDirectory(pattern: string | undefined, directory: string | undefined): string {
  const quoted = pattern === undefined ? "" : JSON.stringify(pattern);
  if (directory === undefined) return quoted;
  return quoted === "" ? directory : `${quoted} in ${directory}`;
}

function lineRange(start: number | undefined, end: number | undefined): string {
  if (start === undefined) return "";
  return end === undefined ? `:L${start}` : `:L${start}-L${end}`;
}

function generic(args: JsonObject): ToolArgsSummary {
  return { label: Object.keys(args).length === 0 ? "" : compactJson(args, LABEL_MAX) };
}

function genericSuccess(success: JsonObject): ToolSuccessSummary {
  const message = firstString(success, "message", "summary", "result");
  return { summary: message === undefined ? "done" : firstLine(message, LABEL_MAX) };
}

/** Bytes of `text` in UTF-8, counted without Node's Buffer (the extractors run in browsers). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code < 0xdc00 && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next < 0xe000) {
        bytes += 4;
        index += 1;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

function utf8Bytes(text: string | undefined): number | undefined {
  return text === undefined ? undefined : utf8Length(text);
}

const shell: ToolKindSpec = {
  kind: "shell",
  describe(args) {
    const command = stringAt(args, "command") ?? "";
    const summary: ToolArgsSummary = { label: firstLine(command, LABEL_MAX), command };
    const timeoutMs = numberAt(args, "timeout");
    if (timeoutMs !== undefined && timeoutMs > 0) summary.timeoutMs = timeoutMs;
    if (booleanAt(args, "isBackground") === true) summary.background = true;
    const directory = stringAt(args, "workingDirectory");
    if (directory) summary.directory = directory;
    return summary;
  },
  summarize(success) {
    const exitCode = numberAt(success, "exitCode");
    const stdout = stringAt(success, "stdout") ?? stringAt(success, "interleavedOutput") ?? "";
    const stderr = stringAt(success, "stderr") ?? "";
    const signal = stringAt(success, "signal");
    const result: ToolSuccessSummary = {
      summary: exitCode === undefined ? "done" : `exit ${exitCode}`,
      ok: exitCode === undefined || exitCode === 0,
    };
    if (exitCode !== undefined) result.exitCode = exitCode;
    if (signal) {
      result.signal = signal;
      result.summary += ` (${signal})`;
    }
    if (stdout) result.stdoutTail = tail(stdout);
    if (stderr) result.stderrTail = tail(stderr);
    const executionTimeMs = numberAt(success, "executionTime");
    if (executionTimeMs !== undefined) result.executionTimeMs = executionTimeMs;
    return result;
  },
};

const read: ToolKindSpec = {
  kind: "read",
  describe(args) {
    const path = stringAt(args, "path") ?? "";
    const offset = numberAt(args, "offset");
    const limit = numberAt(args, "limit");
    const range =
      offset === undefined
        ? ""
        : lineRange(offset, limit === undefined ? undefined : offset + limit - 1);
    return { label: `${path}${range}`, path };
  },
  summarize(success) {
    const range = objectAt(success, "readRange");
    const totalLines = numberAt(success, "totalLines");
    const start = numberAt(range, "startLine");
    const end = numberAt(range, "endLine");
    const result: ToolSuccessSummary = {
      summary:
        start !== undefined && end !== undefined
          ? `lines ${start}-${end}${totalLines === undefined ? "" : ` of ${totalLines}`}`
          : totalLines === undefined
            ? "read"
            : plural(totalLines, "line"),
    };
    if (totalLines !== undefined) result.lineCount = totalLines;
    const bytes = numberAt(success, "fileSize");
    if (bytes !== undefined) result.bytes = bytes;
    if (booleanAt(success, "isEmpty") === true) result.summary = "empty file";
    return result;
  },
};

const ls: ToolKindSpec = {
  kind: "ls",
  describe(args) {
    const path = stringAt(args, "path") ?? firstString(args, "targetDirectory") ?? "";
    return { label: path, path };
  },
  summarize(success) {
    const root = objectAt(success, "directoryTreeRoot");
    const files = numberAt(root, "numFiles") ?? arrayAt(root, "childrenFiles")?.length;
    const directories = arrayAt(root, "childrenDirs")?.length;
    const parts: string[] = [];
    if (files !== undefined) parts.push(plural(files, "file"));
    if (directories !== undefined) parts.push(plural(directories, "directory", "directories"));
    const result: ToolSuccessSummary = { summary: parts.join(", ") || "listed" };
    if (files !== undefined) result.fileCount = files;
    return result;
  },
};

const grep: ToolKindSpec = {
  kind: "grep",
  describe(args) {
    const pattern = stringAt(args, "pattern");
    const directory = firstString(args, "path", "targetDirectory");
    const summary: ToolArgsSummary = { label: inDirectory(pattern, directory) };
    if (pattern !== undefined) summary.pattern = pattern;
    if (directory !== undefined) summary.directory = directory;
    return summary;
  },
  summarize(success) {
    let matchCount = 0;
    let fileCount = 0;
    let sawContent = false;
    let sawFiles = false;
    const workspaces = objectAt(success, "workspaceResults") ?? {};
    for (const workspace of Object.values(workspaces)) {
      const content = objectAt(workspace, "content");
      if (content) {
        sawContent = true;
        const matches = arrayAt(content, "matches") ?? [];
        fileCount += matches.length;
        const counted = numberAt(content, "totalMatchedLines");
        matchCount +=
          counted ??
          matches.reduce<number>(
            (sum, file) =>
              sum +
              (arrayAt(file, "matches")?.filter(
                (match) => booleanAt(match, "isContextLine") !== true,
              ).length ?? 0),
            0,
          );
      }
      const files = arrayAt(objectAt(workspace, "files"), "files");
      if (files) {
        sawFiles = true;
        fileCount += files.length;
      }
    }
    if (sawContent) {
      return {
        summary: `${plural(matchCount, "match", "matches")} in ${plural(fileCount, "file")}`,
        matchCount,
        fileCount,
      };
    }
    if (sawFiles) return { summary: plural(fileCount, "file"), fileCount };
    return { summary: "searched" };
  },
};

const glob: ToolKindSpec = {
  kind: "glob",
  describe(args) {
    const pattern = firstString(args, "globPattern", "pattern");
    const directory = firstString(args, "targetDirectory", "path");
    const summary: ToolArgsSummary = { label: inDirectory(pattern, directory) };
    if (pattern !== undefined) summary.pattern = pattern;
    if (directory !== undefined) summary.directory = directory;
    return summary;
  },
  summarize(success) {
    const fileCount = numberAt(success, "totalFiles") ?? arrayAt(success, "files")?.length ?? 0;
    return { summary: plural(fileCount, "file"), fileCount };
  },
};

const semSearch: ToolKindSpec = {
  kind: "semSearch",
  describe(args) {
    const query = firstString(args, "query") ?? "";
    const directories = arrayAt(args, "targetDirectories")?.filter(
      (item) => typeof item === "string",
    );
    const directory = directories && directories.length > 0 ? directories.join(", ") : undefined;
    const summary: ToolArgsSummary = { label: inDirectory(query, directory), query };
    if (directory !== undefined) summary.directory = directory;
    return summary;
  },
  summarize(success) {
    const results = arrayAt(success, "results") ?? arrayAt(objectAt(success, "results"), "results");
    return results === undefined
      ? { summary: "searched" }
      : { summary: plural(results.length, "result"), matchCount: results.length };
  },
};

const edit: ToolKindSpec = {
  kind: "edit",
  describe(args) {
    const path = stringAt(args, "path") ?? "";
    const range = lineRange(numberAt(args, "startLine"), numberAt(args, "endLine"));
    return { label: `${path}${range}`, path };
  },
  summarize(success) {
    const linesAdded = numberAt(success, "linesAdded");
    const linesRemoved = numberAt(success, "linesRemoved");
    const result: ToolSuccessSummary = {
      summary:
        linesAdded === undefined && linesRemoved === undefined
          ? (firstString(success, "message") ?? "edited")
          : `+${linesAdded ?? 0} -${linesRemoved ?? 0}`,
    };
    if (linesAdded !== undefined) result.linesAdded = linesAdded;
    if (linesRemoved !== undefined) result.linesRemoved = linesRemoved;
    const bytes = utf8Bytes(stringAt(success, "afterFullFileContent"));
    if (bytes !== undefined) result.bytes = bytes;
    return result;
  },
};

const write: ToolKindSpec = {
  kind: "write",
  describe(args) {
    const path = stringAt(args, "path") ?? "";
    const bytes = utf8Bytes(firstString(args, "fileText", "contents", "content"));
    return { label: bytes === undefined ? path : `${path} (${plural(bytes, "byte")})`, path };
  },
  summarize(success) {
    const lineCount = numberAt(success, "linesCreated");
    const bytes = numberAt(success, "fileSize");
    const parts: string[] = [];
    if (lineCount !== undefined) parts.push(plural(lineCount, "line"));
    if (bytes !== undefined) parts.push(plural(bytes, "byte"));
    const result: ToolSuccessSummary = { summary: parts.join(", ") || "written" };
    if (lineCount !== undefined) result.lineCount = lineCount;
    if (bytes !== undefined) result.bytes = bytes;
    return result;
  },
};

const deleteFile: ToolKindSpec = {
  kind: "delete",
  describe(args) {
    const path = stringAt(args, "path") ?? "";
    return { label: path, path };
  },
  summarize: (success) => ({ summary: firstString(success, "message") ?? "deleted" }),
};

/** `providerIdentifier`/`toolName`, else the `<server>-<tool>` name. */
function mcpNames(args: JsonObject): { provider?: string; tool?: string } {
  const provider = firstString(args, "providerIdentifier", "server", "provider");
  const tool = firstString(args, "toolName", "tool");
  const names: { provider?: string; tool?: string } = {};
  if (provider !== undefined) names.provider = provider;
  if (tool !== undefined) names.tool = tool;
  if (provider === undefined && tool === undefined) {
    const name = stringAt(args, "name");
    if (name !== undefined) names.tool = name;
  }
  return names;
}

const mcp: ToolKindSpec = {
  kind: "mcp",
  describe(args) {
    const names = mcpNames(args);
    const label =
      names.provider !== undefined && names.tool !== undefined
        ? `${names.provider}/${names.tool}`
        : (names.tool ?? names.provider ?? "");
    return { label, mcp: names };
  },
  summarize(success) {
    const content = arrayAt(success, "content") ?? [];
    const texts = content
      .map((item) => stringAt(objectAt(item, "text"), "text") ?? stringAt(item, "text"))
      .filter((text): text is string => text !== undefined);
    const isError = booleanAt(success, "isError") === true;
    const summary =
      texts.length > 0 ? firstLine(texts.join("\n"), LABEL_MAX) : plural(content.length, "item");
    const result: ToolSuccessSummary = { summary, ok: !isError };
    if (isError) result.error = summary;
    return result;
  },
};

const TODO_DONE = new Set(["TODO_STATUS_COMPLETED", "completed", "done"]);

function countTodos(todos: unknown[] | undefined): string {
  if (todos === undefined) return "";
  const done = todos.filter((todo) => TODO_DONE.has(stringAt(todo, "status") ?? "")).length;
  return `${plural(todos.length, "todo")} (${done} done)`;
}

const updateTodos: ToolKindSpec = {
  kind: "updateTodos",
  describe: (args) => ({ label: countTodos(arrayAt(args, "todos")) }),
  summarize(success) {
    const todos = arrayAt(success, "todos");
    const total = numberAt(success, "totalCount") ?? todos?.length;
    return {
      summary:
        todos !== undefined
          ? countTodos(todos)
          : total === undefined
            ? "updated"
            : plural(total, "todo"),
    };
  },
};

const readTodos: ToolKindSpec = {
  kind: "readTodos",
  describe: generic,
  summarize: (success) => ({ summary: countTodos(arrayAt(success, "todos")) || "read" }),
};

const webFetch = (kind: string): ToolKindSpec => ({
  kind,
  describe(args) {
    const url = firstString(args, "url", "target") ?? "";
    return { label: url, url };
  },
  summarize(success) {
    const body = firstString(success, "markdown", "content", "body", "text");
    return {
      summary: body === undefined ? "fetched" : plural(body.length, "char"),
      ...(body === undefined ? {} : { bytes: utf8Length(body) }),
    };
  },
});

const webSearch: ToolKindSpec = {
  kind: "webSearch",
  describe(args) {
    const query =
      firstString(args, "query", "searchTerm") ??
      (arrayAt(args, "queries")?.find((item) => typeof item === "string") as string | undefined) ??
      "";
    return { label: JSON.stringify(query), query };
  },
  summarize(success) {
    const results = arrayAt(success, "results") ?? arrayAt(success, "references");
    return results === undefined
      ? genericSuccess(success)
      : { summary: plural(results.length, "result") };
  },
};

const task: ToolKindSpec = {
  kind: "task",
  describe(args) {
    const type =
      firstString(args, "subagentType", "subagent_type", "agent", "description") ?? "task";
    const prompt = firstString(args, "prompt", "message", "task") ?? "";
    return { label: prompt ? `${type}: ${truncate(prompt.replace(/\s+/g, " "), 80)}` : type };
  },
  summarize: genericSuccess,
};

const awaitCall: ToolKindSpec = {
  kind: "await",
  describe(args) {
    const target = firstString(args, "taskId", "toolCallId", "shellId") ?? "";
    const summary: ToolArgsSummary = { label: target };
    const wait = numberAt(args, "blockUntilMs") ?? numberAt(args, "timeoutMs");
    if (wait !== undefined && wait > 0) summary.timeoutMs = wait;
    return summary;
  },
  summarize: genericSuccess,
};

const listMcpResources: ToolKindSpec = {
  kind: "listMcpResources",
  describe: (args) => ({ label: firstString(args, "server", "providerIdentifier") ?? "" }),
  summarize(success) {
    const resources = arrayAt(success, "resources");
    return resources === undefined
      ? genericSuccess(success)
      : { summary: plural(resources.length, "resource") };
  },
};

const readMcpResource: ToolKindSpec = {
  kind: "readMcpResource",
  describe(args) {
    const server = firstString(args, "server", "providerIdentifier");
    const uri = firstString(args, "uri") ?? "";
    return { label: server === undefined ? uri : `${server}/${uri}` };
  },
  summarize: genericSuccess,
};

const getMcpTools: ToolKindSpec = {
  kind: "getMcpTools",
  describe: (args) => ({ label: firstString(args, "server", "providerIdentifier") ?? "" }),
  summarize(success) {
    const tools = arrayAt(success, "tools");
    return tools === undefined
      ? genericSuccess(success)
      : { summary: plural(tools.length, "tool") };
  },
};

const readLints: ToolKindSpec = {
  kind: "readLints",
  describe(args) {
    const paths = arrayAt(args, "paths")?.filter(
      (item): item is string => typeof item === "string",
    );
    return { label: paths && paths.length > 0 ? truncate(paths.join(", "), LABEL_MAX) : "" };
  },
  summarize(success) {
    const diagnostics =
      arrayAt(success, "diagnostics") ??
      arrayAt(success, "fileDiagnostics") ??
      arrayAt(success, "lints");
    return diagnostics === undefined
      ? genericSuccess(success)
      : { summary: plural(diagnostics.length, "diagnostic") };
  },
};

const askQuestion: ToolKindSpec = {
  kind: "askQuestion",
  describe(args) {
    const questions = arrayAt(args, "questions");
    const first = questions?.[0];
    const text =
      firstString(first, "prompt", "question", "text") ?? firstString(args, "title", "question");
    return { label: text === undefined ? "" : firstLine(text, LABEL_MAX) };
  },
  summarize: genericSuccess,
};

const createPlan: ToolKindSpec = {
  kind: "createPlan",
  describe: (args) => ({
    label: firstLine(firstString(args, "name", "title", "overview") ?? "", LABEL_MAX),
  }),
  summarize: genericSuccess,
};

const switchMode: ToolKindSpec = {
  kind: "switchMode",
  describe: (args) => ({ label: firstString(args, "targetModeId", "mode", "targetMode") ?? "" }),
  summarize: genericSuccess,
};

const writeShellStdin: ToolKindSpec = {
  kind: "writeShellStdin",
  describe(args) {
    const shellId = firstString(args, "shellId", "sessionId", "taskId");
    const chars = firstString(args, "chars", "text", "input") ?? "";
    const text = JSON.stringify(truncate(chars, 60));
    return { label: shellId === undefined ? text : `${shellId} ← ${text}` };
  },
  summarize: genericSuccess,
};

const applyAgentDiff: ToolKindSpec = {
  kind: "applyAgentDiff",
  describe(args) {
    const path = firstString(args, "path", "filePath");
    return path === undefined ? generic(args) : { label: path, path };
  },
  summarize: genericSuccess,
};

const blameByFilePath: ToolKindSpec = {
  kind: "blameByFilePath",
  describe(args) {
    const path = firstString(args, "filePath", "path") ?? "";
    const range = lineRange(numberAt(args, "startLine"), numberAt(args, "endLine"));
    return { label: `${path}${range}`, path };
  },
  summarize: genericSuccess,
};

const prManagement: ToolKindSpec = {
  kind: "prManagement",
  describe: (args) => {
    const action = firstString(args, "action", "operation");
    return action === undefined ? generic(args) : { label: action };
  },
  summarize: (success) => {
    const url = firstString(success, "url", "prUrl");
    return url === undefined ? genericSuccess(success) : { summary: url };
  },
};

const recordScreen: ToolKindSpec = {
  kind: "recordScreen",
  describe: (args) => {
    const action = firstString(args, "action", "mode");
    return action === undefined ? generic(args) : { label: action };
  },
  summarize: genericSuccess,
};

/** The generic `{"function":{"name","arguments"}}` shape for tools without a dedicated key. */
const functionCall: ToolKindSpec = {
  kind: "function",
  describe(args) {
    const name = stringAt(args, "name") ?? "function";
    const argumentsText = stringAt(args, "arguments");
    let parsed: unknown = argumentsText;
    if (argumentsText !== undefined) {
      try {
        parsed = JSON.parse(argumentsText);
      } catch {
        // keep the text as it came
      }
    }
    const detail =
      parsed === undefined || (isObject(parsed) && Object.keys(parsed).length === 0)
        ? ""
        : ` ${compactJson(parsed, LABEL_MAX - name.length - 1)}`;
    return { label: `${name}${detail}` };
  },
  summarize: genericSuccess,
};

/** Every tool key seen in real captures or documented, mapped to how it is read. */
export const TOOL_KINDS: Readonly<Record<string, ToolKindSpec>> = Object.freeze({
  shellToolCall: shell,
  readToolCall: read,
  lsToolCall: ls,
  grepToolCall: grep,
  globToolCall: glob,
  semSearchToolCall: semSearch,
  editToolCall: edit,
  writeToolCall: write,
  deleteToolCall: deleteFile,
  mcpToolCall: mcp,
  updateTodosToolCall: updateTodos,
  readTodosToolCall: readTodos,
  webFetchToolCall: webFetch("webFetch"),
  fetchToolCall: webFetch("fetch"),
  webSearchToolCall: webSearch,
  taskToolCall: task,
  awaitToolCall: awaitCall,
  listMcpResourcesToolCall: listMcpResources,
  readMcpResourceToolCall: readMcpResource,
  getMcpToolsToolCall: getMcpTools,
  readLintsToolCall: readLints,
  askQuestionToolCall: askQuestion,
  createPlanToolCall: createPlan,
  switchModeToolCall: switchMode,
  writeShellStdinToolCall: writeShellStdin,
  applyAgentDiffToolCall: applyAgentDiff,
  blameByFilePathToolCall: blameByFilePath,
  prManagementToolCall: prManagement,
  recordScreenToolCall: recordScreen,
  function: functionCall,
});

/** How an unknown `<name>ToolCall` key is read: kind `<name>`, compact args. */
export function unknownToolKind(key: string): ToolKindSpec {
  return {
    kind: key.endsWith("ToolCall") ? key.slice(0, -"ToolCall".length) : key,
    describe: generic,
    summarize: genericSuccess,
  };
}
