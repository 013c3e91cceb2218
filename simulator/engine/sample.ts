import { randomNormal, type Rng } from '../core/rng.js';
import type { Dist } from '../scenario/schema.js';

// z-score of the 99th percentile: lognormal sigma = ln(p99 / median) / Z99.
const Z99 = 2.3263478740408408;

/** Draws a non-negative number from `dist`. */
export function sample(dist: Dist, rng: Rng): number {
  switch (dist.dist) {
    case 'fixed':
      return dist.value;
    case 'uniform':
      return dist.min + rng.next() * (dist.max - dist.min);
    case 'normal':
      return Math.max(0, dist.mean + dist.sd * randomNormal(rng));
    case 'lognormal': {
      if (dist.median <= 0) return 0;
      const sigma = Math.log(dist.p99 / dist.median) / Z99;
      return dist.median * Math.exp(sigma * randomNormal(rng));
    }
  }
}
