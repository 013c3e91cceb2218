import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'router/**/*.test.ts',
      'simulator/**/*.test.ts',
      'harness/**/*.test.ts',
      'bin/**/*.test.ts',
      'test/**/*.test.ts',
      'examples/**/*.test.ts',
    ],
    exclude: ['node_modules/**', 'dist/**'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // The harness tests mostly wait on timers and sockets: two workers keep the suite short on two cores.
    maxWorkers: 2,
    // Tests marked concurrent (wall-clock scenario runs that mostly wait) run at most four at a
    // time in a file: few enough that the harness's own lag stays well under the timing margins
    // those tests rely on.
    maxConcurrency: 4,
  },
});
