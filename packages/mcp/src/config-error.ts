import { CursorWrapError } from "@cursor-wrap/errors";

/** A config file that cannot be used or changed, and why (one line, for people). */
export class McpConfigError extends CursorWrapError {
  static override readonly marker: string = "cursor-wrap.error.mcp-config";
  /** The config file the error is about. */
  readonly path: string;
  constructor(path: string, detail: string, options: { cause?: unknown } = {}) {
    super("MCP_CONFIG", `${path}: ${detail}`, options);
    this.path = path;
  }
}
