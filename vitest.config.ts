import { defineConfig } from 'vitest/config';

// Integration tests that run wholly in process in simulated time: no child processes, no sockets
// of their own, no module mocks or patched globals. Each used to pay for a fresh worker that
// imported the simulator, the harness and the router again (under load, import time exceeded test
// time); unisolated, a worker imports them once. Their verdicts cannot depend on what ran before
// them in the worker: simulated-run.test.ts plays the pack twice in one module state and requires
// byte-identical reports and ledgers, and simulated-golden pins the same bytes.
const IN_PROCESS = [
  'test/spec/**/*.test.ts',
  'test/contract/cancel-signal.test.ts',
  'test/contract/header-round-trip.test.ts',
  'test/contract/memory-store.test.ts',
  'test/contract/vendor-profiles.test.ts',
  'test/helpers/starved-timing-fail.test.ts',
  'test/integration/cache-affinity-scenario.test.ts',
  'test/integration/harness-broken-routers.test.ts',
  'test/integration/in-process-transport.test.ts',
  'test/integration/router-hang-room.test.ts',
  'test/integration/router-held-timeout.test.ts',
  'test/integration/router-quota-failover.test.ts',
  'test/integration/router-simulated-time.test.ts',
  'test/integration/router-woken-waiter.test.ts',
  'test/integration/scenarios.test.ts',
  'test/integration/simulated-golden.test.ts',
  'test/integration/simulated-run.test.ts',
];

// Files that need a worker of their own, and why.
const ISOLATED = [
  // msw's setupServer patches globalThis.fetch and node's http/https request for the whole file.
  'test/contract/http-equals-msw.test.ts',
  'test/contract/msw-equals-undici.test.ts',
  // vi.mock('throttlelab/router'), vi.resetModules and stubbed process.env around each import.
  'test/e2e/example-router-config.test.ts',
];

export default defineConfig({
  test: {
    exclude: ['node_modules/**', 'dist/**'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // The end-to-end tests mostly wait on timers, sockets and child processes: three workers on two
    // cores kept both busy (quiet: 400 s with two workers, 287 s with three) and stayed green beside
    // four CPU-bound processes (BENCHMARKS.md, "Whole suite after the 2026-12-03 merges").
    maxWorkers: 3,
    projects: [
      {
        // The unit tests beside the code: short, in process, no child processes or shared
        // servers, no module mocks. Most of their time was importing the simulator, the harness
        // and the router afresh for each file (~1 s a file); unisolated, a worker imports them once.
        extends: true,
        test: {
          name: 'unit',
          include: ['router/**/*.test.ts', 'simulator/**/*.test.ts', 'harness/**/*.test.ts'],
          isolate: false,
        },
      },
      {
        // The in-process integration and spec tests above, unisolated for the same reason.
        extends: true,
        test: {
          name: 'simulated',
          include: IN_PROCESS,
          isolate: false,
        },
      },
      {
        // Integration, contract and end-to-end tests, unisolated too: each file runs its servers,
        // child processes and Redis prefixes of its own on port 0 and closes them in its hooks, and
        // none mocks a module or patches a global it does not restore (the two that listen for
        // unhandled rejections, test/fuzz/*, take their listener off in afterAll; judge-in-process
        // puts undici's global dispatcher back). A fresh worker cost each file ~1 s of imports.
        extends: true,
        test: {
          name: 'integration',
          include: ['bin/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
          exclude: ['node_modules/**', 'dist/**', ...IN_PROCESS, ...ISOLATED],
          isolate: false,
        },
      },
      {
        // The files that change process-wide state for their whole run: each in a fresh worker.
        extends: true,
        test: {
          name: 'isolated',
          include: ISOLATED,
          isolate: true,
        },
      },
    ],
  },
});
