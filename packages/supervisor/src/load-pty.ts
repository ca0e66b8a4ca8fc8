import type { IPty, IPtyForkOptions } from "@lydell/node-pty";

/** The part of node-pty's API the supervisor uses (same in `@lydell/node-pty` and `node-pty`). */
export interface PtyModule {
  spawn(file: string, args: string[], options: IPtyForkOptions): IPty;
}

let cached: Promise<PtyModule | null> | undefined;

/**
 * Load a pty implementation once: `@lydell/node-pty` (prebuilt binaries) first, then
 * `node-pty`. Resolves to null when neither loads, so `--pty` can fail with one clear message.
 */
export function loadPty(): Promise<PtyModule | null> {
  cached ??= (async () => {
    for (const name of ["@lydell/node-pty", "node-pty"]) {
      try {
        const loaded = (await import(name)) as PtyModule & { default?: PtyModule };
        const module = typeof loaded.spawn === "function" ? loaded : loaded.default;
        if (module && typeof module.spawn === "function") return module;
      } catch {
        // not installed, or its native part failed to load: try the next one
      }
    }
    return null;
  })();
  return cached;
}
