import { fileURLToPath } from "node:url";
import { defineConfig, mergeConfig } from "vitest/config";

/**
 * Every package's tests: a throwaway HOME (see `vitest.global-setup.ts`), so no test, nor any
 * process a test starts, can write to the real `~/.cursor-wrap`.
 */
export const packageTests = defineConfig({
  test: {
    globalSetup: [fileURLToPath(new URL("./vitest.global-setup.ts", import.meta.url))],
    // Pure logic, fake clocks: no test waits on time. The limit only catches a test that never
    // ends; 5 s (vitest's default) was hit by a 300-case property test on a loaded 2-core machine.
    testTimeout: 30_000,
  },
});

/**
 * For packages whose tests start real processes (the fake agent, the built CLI): generous
 * time limits, because on a loaded two-core machine a cold Node start alone can take a second.
 * Timing targets live in the benchmarks, not here.
 */
export const realProcessTests = mergeConfig(
  packageTests,
  defineConfig({
    test: {
      testTimeout: 60_000,
      hookTimeout: 60_000,
    },
  }),
);
