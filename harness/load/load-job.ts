import type { LoadSpec } from '../scenario/schema.js';
import type { LoadJob } from './load-group-keys.js';

/**
 * The job a load group's workers share: the load, the seed and run id the requests are planned
 * from, and of the router's environment only the variables the load's headers name, so no other
 * key or URL is written to Redis.
 */
export function loadJob(
  load: LoadSpec,
  o: { seed: number; runId: string; env: Readonly<Record<string, string>>; baseUrl: string; segments: number },
): LoadJob {
  const named = new Set<string>();
  for (const v of Object.values(load.headers)) for (const m of v.matchAll(/\$\{([^}]*)\}/g)) named.add(m[1]!);
  const env = Object.fromEntries(Object.entries(o.env).filter(([k]) => named.has(k)));
  return { load, seed: o.seed, runId: o.runId, env, baseUrl: o.baseUrl, segments: o.segments };
}
