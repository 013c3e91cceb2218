import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    exclude: ['node_modules/**', 'dist/**'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // The harness tests mostly wait on timers and sockets: two workers keep the suite short on two cores.
    maxWorkers: 2,
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
        // Integration, contract and end-to-end tests: each file in a fresh worker.
        extends: true,
        test: {
          name: 'integration',
          include: ['bin/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
        },
      },
    ],
  },
});
