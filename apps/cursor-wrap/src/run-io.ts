/** The process streams a command talks to (injectable for tests). */
export interface RunIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean; writableNeedDrain?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; writableNeedDrain?: boolean };
}
