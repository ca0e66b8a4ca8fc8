import { defineConfig } from "vitest/config";

/**
 * For packages whose tests start real processes (the fake agent, the built CLI): generous
 * time limits, because on a loaded two-core machine a cold Node start alone can take a second.
 * Timing targets live in the benchmarks, not here.
 */
export const realProcessTests = defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
