import type { Options } from "tsup";

/**
 * The one tsup configuration every package builds with: ESM, declarations, source maps. Files
 * are compiled one to one (not bundled), so a consumer's bundler keeps only the modules it
 * uses: an app that never validates leaves zod out. Packages pass only what differs.
 */
export function packageConfig(overrides: Options = {}): Options {
  return {
    entry: ["src/**/*.ts", "!src/**/*.test.ts", "!src/**/__fixtures__/**"],
    bundle: false,
    format: ["esm"],
    target: "node20",
    dts: { entry: "src/index.ts" },
    sourcemap: true,
    clean: true,
    ...overrides,
  };
}
