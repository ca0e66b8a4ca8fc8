// A small file system for tests of full disks and read-only directories: a tmpfs of a few
// kilobytes mounted on a directory. Mounting needs root (CI and the development machines run
// as root); where it is refused, `canMountSmallFileSystem()` is false and such tests are skipped.

import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A tmpfs mounted for a test. */
export interface SmallFileSystem {
  /** Where it is mounted. */
  readonly dir: string;
  /** Fill it to the last byte with a file of its own, then free `bytes` (whole 4 KiB pages). */
  fillLeaving(bytes: number): void;
  /** Make it read-only (`remount,ro`). */
  makeReadOnly(): void;
  /** Unmount it and remove the directory. */
  remove(): void;
}

const run = (args: string[]): boolean => spawnSync(args[0]!, args.slice(1)).status === 0;

/** Mount a tmpfs of `sizeBytes` (rounded up to pages) on a fresh directory. Throws when refused. */
export function mountSmallFileSystem(sizeBytes: number): SmallFileSystem {
  const dir = mkdtempSync(join(tmpdir(), "cursor-wrap-small-fs-"));
  const mount = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${sizeBytes}`, "tmpfs", dir]);
  if (mount.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`cannot mount a tmpfs: ${mount.stderr.toString().trim() || mount.error}`);
  }
  const filler = join(dir, ".filler");
  return {
    dir,
    fillLeaving(bytes) {
      const fd = openSync(filler, "a");
      const page = Buffer.alloc(4_096, 0x2e);
      try {
        for (;;) writeSync(fd, page);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
      } finally {
        closeSync(fd);
      }
      const size = statSync(filler).size;
      const free = Math.ceil(bytes / 4_096) * 4_096;
      spawnSync("truncate", ["-s", String(Math.max(0, size - free)), filler]);
    },
    makeReadOnly() {
      if (!run(["mount", "-o", "remount,ro", dir])) throw new Error(`cannot remount ${dir}`);
    },
    remove() {
      run(["umount", "-l", dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let mountable: boolean | undefined;

/** Whether this machine lets tests mount a tmpfs (root, no sandbox in the way); tried once. */
export function canMountSmallFileSystem(): boolean {
  if (mountable === undefined) {
    try {
      if (process.platform === "linux") mountSmallFileSystem(16 * 1024).remove();
      mountable = process.platform === "linux";
    } catch {
      mountable = false;
    }
  }
  return mountable;
}
