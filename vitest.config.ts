import { configDefaults, defineConfig } from 'vitest/config';

const STATEFUL_UNIT_FILES = [
  'agentic-workers',
  'clients',
  'http-pipeline',
  'request-fast-paths',
  'sfn-client',
  'tracing',
  'usage-meter',
  'vendor-summaries',
].map((name) => `test/unit/${name}.test.ts`);

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
      // Most unit files keep no state beyond themselves, so a worker reuses its loaded modules from
      // one file to the next (about a third of their CPU, which the rest of the suite uses instead).
      // The files that switch module-wide state (tracing, the request log sink, environment
      // variables, module mocks, fake timers) run isolated with the others.
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...STATEFUL_UNIT_FILES],
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'main',
          include: ['test/integration/**/*.test.ts', ...STATEFUL_UNIT_FILES],
          sequence: { groupOrder: 0 },
        },
      },
      // Each e2e file starts its own service, engines and simulator and stops them at its end, so a
      // worker reuses the service's loaded modules from one file to the next instead of loading
      // them again per file (e2e CPU ~350 -> ~250 s here).
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          isolate: false,
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
