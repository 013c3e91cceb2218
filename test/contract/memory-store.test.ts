import { describe } from 'vitest';
import { runStateStoreContract } from './state-store.case.js';
import { createMemoryStore } from '../../router/state/memory-store.js';

describe('memory store', () => {
  runStateStoreContract(createMemoryStore);
});
