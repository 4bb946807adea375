import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    setupFiles: ['test/setup.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most files spend their time waiting on timers, child processes and loopback I/O, not on the
    // CPU: four at once keep two cores busy (two left them about 60 % idle).
    maxWorkers: 4,
    projects: [
      {
        extends: true,
        test: {
          name: 'main',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/infra/**'],
          sequence: { groupOrder: 0 },
        },
      },
      // The infra tests read stacks synthesized once per process (test/infra/helpers.ts): files
      // that land in the same worker share it, so each stack and aws-cdk-lib load once there.
      {
        extends: true,
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          isolate: false,
          // Beside the other files: the synths and builds use the CPU the e2e files leave while
          // they wait on timers and loopback I/O.
          sequence: { groupOrder: 0 },
        },
      },
    ],
  },
});
