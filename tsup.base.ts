import type { Options } from "tsup";

/**
 * The one tsup configuration every package builds with: ESM, declarations, source maps.
 * Packages pass only their entry points (and, where needed, externals).
 */
export function packageConfig(overrides: Options = {}): Options {
  return {
    entry: ["src/index.ts"],
    format: ["esm"],
    target: "node20",
    dts: true,
    sourcemap: true,
    clean: true,
    ...overrides,
  };
}
