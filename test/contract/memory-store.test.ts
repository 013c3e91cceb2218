import { describe } from 'vitest';
import { runStateStoreContract } from './state-store.case.js';
import { createMemoryStore } from '../../router/state/memory-store.js';

describe('memory store', () => {
  // One process is the whole fleet: every "replica" is the same store.
  runStateStoreContract(() => {
    const store = createMemoryStore();
    return { shared: false, replicas: async (n) => Array.from({ length: n }, () => store), close: () => store.close() };
  });
});
