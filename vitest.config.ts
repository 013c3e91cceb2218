import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['router/**/*.test.ts', 'simulator/**/*.test.ts', 'bin/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['node_modules/**', 'dist/**'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
