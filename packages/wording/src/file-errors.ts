// How a message says why a file could not be used: the system error's code with its meaning,
// and what a path is when it is not a regular file. Shared by every command that names a file
// it was given (the MCP configs, `replay`, `logs show`), so they say it the same way.

/** What the file-type tests of `fs.Stats` answer (a structural type: no `node:fs` import). */
export interface FileKindStats {
  isFile(): boolean;
  isSymbolicLink(): boolean;
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
}

/** What a path is, when it is not a regular file: `a directory`, `a FIFO (named pipe)`, … */
export function kindOf(stats: FileKindStats): string | undefined {
  if (stats.isFile()) return undefined;
  if (stats.isSymbolicLink()) return "a symbolic link";
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isSocket()) return "a socket";
  return "a device";
}

const REASONS: Readonly<Record<string, string>> = {
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EFBIG: "file too large",
  EROFS: "read-only file system",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EIO: "input/output error",
  ENOENT: "no such file or directory",
  ENOTDIR: "a part of the path is not a directory",
  EISDIR: "is a directory",
  ELOOP: "is a symbolic link",
  ENAMETOOLONG: "file name too long",
};

/** `ENOSPC (no space left on device)`, for one-line errors; the message of an error with no code. */
export function describeError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === undefined) return (error as Error | undefined)?.message ?? String(error);
  return Object.hasOwn(REASONS, code) ? `${code} (${REASONS[code]})` : code;
}
