import { describe } from 'vitest';
import { runStateStoreContract } from './state-store.case.js';
import { createMemoryStore } from './memory-store.js';

describe('memory store', () => {
  runStateStoreContract(createMemoryStore);
});
