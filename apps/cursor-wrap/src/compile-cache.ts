// V8's compiled code of the CLI's own chunks, kept between runs (P6): on Node 20 a run spends
// more of its start-up compiling the chunks it loads than running them, and Node 20 has no
// compile cache of its own (`module.enableCompileCache` came in 22.1; where it exists, it is
// used instead). The launcher (bin/cursor-wrap.js) calls `enableCompileCache` before it loads
// the CLI; the build makes the chunks CommonJS so that they can be compiled here.
//
// Each chunk is compiled from its source with the code V8 cached for it the last time (`vm.Script`
// with `cachedData`); a chunk with no cache, or one V8 turns down (another Node, other V8
// flags), is cached at exit, with every function the run compiled by then. A cache is a
// file per chunk, named by the chunk's path, inode, size and modification time (V8 itself checks
// only the source's length), in a directory only this user can write to; writing a cache
// removes those of the chunks of the same directory that are gone or were replaced, and any
// other cache (another install's, a build's) that no run has written for 30 days. Nothing here
// ever fails a run: any error means the chunk is compiled as Node would.

import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import Module from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join, sep } from "node:path";
import { Script } from "node:vm";

/** The parts of Node's CommonJS loader the cache takes over: not in Node's public types. */
interface LoaderModule {
  exports: unknown;
  require(id: string): unknown;
  _compile(content: string, filename: string, format?: string): unknown;
}
interface Loader {
  prototype: LoaderModule;
  enableCompileCache?: () => unknown;
  _resolveFilename(
    request: string,
    parent: LoaderModule,
    isMain: boolean,
    options?: object,
  ): string;
  _cache: Record<string, unknown>;
}

export interface CompileCacheOptions {
  /** Only files under this directory are cached: the CLI's own chunks. */
  root: string;
  /** Where the cache files are kept. Default: see `compileCacheDirectory`. */
  directory?: string;
  /** Read for `NODE_DISABLE_COMPILE_CACHE` and `NODE_COMPILE_CACHE`, as Node 22 reads them. */
  env?: NodeJS.ProcessEnv;
  /** Node's own compile cache, when this Node has one. Default: `module.enableCompileCache`. */
  nodeCompileCache?: (() => unknown) | undefined;
}

/** What `enableCompileCache` did. */
export type CompileCacheState =
  | { kind: "node" }
  | { kind: "disabled"; reason: string }
  | { kind: "unavailable"; reason: string }
  | { kind: "enabled"; directory: string; flush: () => number };

/**
 * The cache's directory: `$NODE_COMPILE_CACHE/cursor-wrap` when that is set (where Node 22 keeps
 * its own), else one per user in the temporary directory; per Node version and architecture, so
 * that two Node versions never take turns overwriting each other's caches.
 */
export function compileCacheDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.NODE_COMPILE_CACHE
    ? join(env.NODE_COMPILE_CACHE, "cursor-wrap")
    : join(tmpdir(), `cursor-wrap-compile-cache-${process.getuid?.() ?? "user"}`);
  return join(base, `${process.version}-${process.arch}`);
}

/**
 * Makes the cache's directory (and its parent, which `compileCacheDirectory` names too) if
 * missing, and tells whether both are this user's and no one else can write to them: else
 * another user could plant compiled code in them.
 */
function privateDirectory(directory: string): boolean {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  if (process.platform === "win32") return true;
  const uid = process.getuid?.();
  return [directory, dirname(directory)].every((dir) => {
    const stat = lstatSync(dir);
    return (
      stat.isDirectory() && (uid === undefined || stat.uid === uid) && (stat.mode & 0o022) === 0
    );
  });
}

/**
 * The cached data of a tiny script: equal at start and at exit unless V8's flags changed in
 * between (the run sets one when its output grows, see `capYoungGeneration`). V8 stamps a
 * cache with its flags and turns down one made under others, so a cache made after such a
 * change would be useless to the next run: it is not written.
 */
function flagsProbe(): Buffer {
  return new Script("0", { filename: "cursor-wrap-compile-cache-probe" }).createCachedData();
}

/** FNV-1a of a string: a short, stable name for a directory. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16);
}

/**
 * A chunk's cache file: `<its directory>-<file name>-`, then its inode, size and modification
 * time (another whenever the file is replaced or rewritten).
 */
function cacheName(filename: string): string {
  const stat = statSync(filename, { bigint: true });
  const file = `${fnv1a(dirname(filename))}-${basename(filename)}`;
  return `${file}-${stat.ino}-${stat.size}-${stat.mtimeNs}.cache`;
}

/** A cache file's name, read back: the hash of the chunk's directory and its file name. */
const CACHE_NAME = /^([0-9a-f]+)-(.+)-\d+-\d+-\d+\.cache$/;

/**
 * How long a cache of another directory is kept after it was written: a directory cannot be
 * named from its hash, so a gone install's or build's caches are found by age. One still in
 * use writes its caches again at the end of its next run.
 */
export const STALE_CACHE_MS = 30 * 24 * 60 * 60 * 1000;

/** Whether no run has written `path` since `before` (epoch ms); a file gone is not stale. */
function writtenBefore(path: string, before: number): boolean {
  try {
    return lstatSync(path).mtimeMs < before;
  } catch {
    return false;
  }
}

/**
 * Removes the caches, among `names`, of the chunks in `directories` (by hash) that are gone or
 * were replaced: the files of an earlier build or version. `keep` are the ones just written.
 * Any other file (another directory's cache, a temporary file a crash left) goes once it is
 * older than {@link STALE_CACHE_MS}.
 */
function pruneCaches(
  cacheDirectory: string,
  names: readonly string[],
  directories: ReadonlyMap<string, string>,
  keep: ReadonlySet<string>,
): void {
  const chunkOf = (name: string): [directoryHash: string, chunk: string] => {
    const [, directoryHash = "", chunk = ""] = CACHE_NAME.exec(name) ?? [];
    return [directoryHash, chunk];
  };
  const rewritten = new Set([...keep].map((name) => chunkOf(name).join("/")));
  const staleBefore = Date.now() - STALE_CACHE_MS;
  for (const name of names) {
    if (keep.has(name)) continue;
    const [directoryHash, chunk] = chunkOf(name);
    const directory = directories.get(directoryHash);
    if (directory === undefined) {
      const path = join(cacheDirectory, name);
      if (writtenBefore(path, staleBefore)) rmSync(path, { force: true });
      continue;
    }
    if (rewritten.has(`${directoryHash}/${chunk}`) || !existsSync(join(directory, chunk))) {
      rmSync(join(cacheDirectory, name), { force: true });
    }
  }
}

/**
 * Caches V8's compiled code of the CommonJS files under `root` (see the top of this file).
 * Call it before loading them. On Node 22.1+ it turns on Node's own compile cache instead.
 */
export function enableCompileCache(options: CompileCacheOptions): CompileCacheState {
  const loader = Module as unknown as Loader;
  const env = options.env ?? process.env;
  const nodeCompileCache =
    "nodeCompileCache" in options ? options.nodeCompileCache : loader.enableCompileCache;
  if (nodeCompileCache) {
    nodeCompileCache();
    return { kind: "node" };
  }
  if (env.NODE_DISABLE_COMPILE_CACHE)
    return { kind: "disabled", reason: "NODE_DISABLE_COMPILE_CACHE" };
  // Node maps stack traces through the source maps of the files it compiles itself only.
  if ((process as { sourceMapsEnabled?: boolean }).sourceMapsEnabled === true) {
    return { kind: "disabled", reason: "--enable-source-maps" };
  }
  const cacheDirectory = options.directory ?? compileCacheDirectory(env);
  try {
    if (!privateDirectory(cacheDirectory)) {
      return { kind: "unavailable", reason: `${cacheDirectory} is not private to this user` };
    }
  } catch (error) {
    return { kind: "unavailable", reason: (error as Error).message };
  }
  const root = options.root.endsWith(sep) ? options.root : `${options.root}${sep}`;
  const probe = flagsProbe();
  const uncached: { script: Script; file: string; directory: string }[] = [];
  const compile = loader.prototype._compile;

  loader.prototype._compile = function compileCached(
    this: LoaderModule,
    content: string,
    filename: string,
    format?: string,
  ): unknown {
    if (!filename.startsWith(root) || format === "module") {
      return compile.call(this, content, filename, format);
    }
    let file = "";
    let cachedData: Buffer | undefined;
    try {
      file = join(cacheDirectory, cacheName(filename));
      cachedData = readFileSync(file);
    } catch {
      // No cache yet (or none can be named): compiled from the source, cached at exit.
    }
    // The wrapper on a line of its own, one line before the file's first: stack traces keep
    // the file's own lines and columns.
    const script = new Script(
      `(function (exports, require, module, __filename, __dirname) {\n${content}\n})`,
      // No `import()` is left in the chunks (the build turns them into `require`): Node 20
      // would not run one in a script compiled here.
      { filename, lineOffset: -1, cachedData },
    );
    if (file !== "" && (cachedData === undefined || script.cachedDataRejected === true)) {
      uncached.push({ script, file, directory: dirname(filename) });
    }
    const wrapper = script.runInThisContext({ displayErrors: true }) as (
      ...args: unknown[]
    ) => unknown;
    const require = Object.assign((id: string) => this.require(id), {
      resolve: (request: string, resolveOptions?: object) =>
        loader._resolveFilename(request, this, false, resolveOptions),
      cache: loader._cache,
    });
    return wrapper.call(this.exports, this.exports, require, this, filename, dirname(filename));
  };

  /**
   * Writes the caches of the chunks compiled without one, and removes those of chunks of their
   * directories that are gone or replaced (an earlier build, an upgrade in place); how many it
   * wrote.
   */
  const flush = (): number => {
    if (uncached.length === 0 || !flagsProbe().equals(probe)) return 0;
    const written = new Set<string>();
    const directories = new Map<string, string>();
    for (const { script, file, directory } of uncached.splice(0)) {
      const temporary = `${file}.${process.pid}.tmp`;
      try {
        writeFileSync(temporary, script.createCachedData(), { mode: 0o600 });
        renameSync(temporary, file);
        written.add(basename(file));
        directories.set(fnv1a(directory), directory);
      } catch {
        rmSync(temporary, { force: true });
      }
    }
    if (written.size > 0)
      pruneCaches(cacheDirectory, readdirSync(cacheDirectory), directories, written);
    return written.size;
  };
  process.once("exit", () => {
    try {
      flush();
    } catch {
      // A cache never fails a run.
    }
  });
  return { kind: "enabled", directory: cacheDirectory, flush };
}
