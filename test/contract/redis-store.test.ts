import { describe } from 'vitest';
import { runStateStoreContract } from './state-store.case.js';
import { redisFleet, SHARED_REDIS_URL } from '../helpers/redis.js';

describe('redis store', () => {
  // Separate stores (as separate replicas would hold) sharing one prefix on the team's Redis.
  runStateStoreContract(() => {
    const fleet = redisFleet(SHARED_REDIS_URL);
    return { shared: true, replicas: (n) => fleet.replicas(n), close: () => fleet.close() };
  });
});
