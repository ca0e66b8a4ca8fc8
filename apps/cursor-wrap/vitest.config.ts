import { defineConfig, mergeConfig } from "vitest/config";
import { realProcessTests } from "../../vitest.shared.js";

export default mergeConfig(
  realProcessTests,
  defineConfig({
    test: {
      // No test here mocks a module or changes the process's environment, and the in-process
      // tests restore what they touch (signal listeners, timers): the files of a worker share
      // one module graph (the harness, the test kit, the CLI's modules) instead of each
      // importing and transforming it anew, which cost a few seconds of CPU per file.
      isolate: false,
    },
  }),
);
