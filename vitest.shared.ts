import { availableParallelism } from "node:os";
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
    // ends; 5 s (vitest's default) was hit by a 300-case property test on a loaded 2-core machine,
    // and 30 s by property tests and Ajv's compile with the load average at 30.
    testTimeout: 120_000,
    // Pure logic with no module state a test changes (no vi.mock, fake timers restored after
    // each test): the test files of a worker share one module graph instead of each importing
    // it anew, which was most of these packages' time.
    isolate: false,
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
      testTimeout: 180_000,
      hookTimeout: 180_000,
      // These files spend most of their time waiting on the processes they start (a hang to be
      // detected, a grace to run out), not on the CPU: vitest's default of one worker fewer than
      // the cores (one, on two cores) would run them one after another. One more worker than
      // there are cores keeps the CPU busy while files wait.
      maxWorkers: availableParallelism() + 1,
      // Some of these files mock modules or change the process's environment: each its own.
      isolate: true,
    },
  }),
);
