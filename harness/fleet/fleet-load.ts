import type { Clock } from '../../simulator/index.js';
import type { ClientOutcome } from '../load/client-outcome.js';
import { runClosedLoop } from '../load/closed-loop.js';
import { runOpenLoop, type LoadProgress, type LoadTarget } from '../load/open-loop.js';
import type { PlannedRequest } from '../load/request-plan.js';
import type { LoadSpec } from '../scenario/schema.js';
import { splitConnections, type Spread } from './spread.js';

type LoadResult = { outcomes: ClientOutcome[]; dropped: number };

/**
 * Drives a scenario's load at a router or a fleet. An open loop sends each request to the replica
 * the spread picks. A closed loop runs one autocannon per replica, the connections split as the
 * spread says; request `n` of replica `i` is plan entry `n × replicas + i`, so every request stays
 * unique and seeded.
 */
export async function runLoad(
  load: LoadSpec,
  target: LoadTarget,
  spread: Spread,
  plan: (n: number) => PlannedRequest,
  clock: Clock,
  onProgress?: (p: LoadProgress) => void,
  signal?: AbortSignal,
): Promise<LoadResult> {
  if (load.mode === 'open') return runOpenLoop(load, target, plan, clock, onProgress, signal);
  const urls = target.replicas?.baseUrls ?? [target.baseUrl];
  if (urls.length === 1) return runClosedLoop(load, target, plan, clock, onProgress, signal);
  const connections = splitConnections({ ...spread, replicas: urls.length }, load.connections);
  const progress = new Map<number, LoadProgress>();
  const report = () => {
    const all = [...progress.values()];
    const byStatus: Record<string, number> = {};
    for (const p of all) for (const [k, v] of Object.entries(p.byStatus)) byStatus[k] = (byStatus[k] ?? 0) + v;
    onProgress?.({
      elapsedMs: Math.max(0, ...all.map((p) => p.elapsedMs)),
      sent: all.reduce((a, p) => a + p.sent, 0),
      done: all.reduce((a, p) => a + p.done, 0),
      inFlight: all.reduce((a, p) => a + p.inFlight, 0),
      dropped: all.reduce((a, p) => a + p.dropped, 0),
      byStatus,
    });
  };
  const results = await Promise.all(
    urls.map((baseUrl, i) =>
      runClosedLoop(
        {
          ...load,
          connections: connections[i]!,
          maxRequests: Math.max(1, Math.floor(load.maxRequests / urls.length)),
        },
        { baseUrl },
        (n) => plan(n * urls.length + i),
        clock,
        (p) => {
          progress.set(i, p);
          report();
        },
        signal,
      ).then((r) => ({ ...r, outcomes: r.outcomes.map((o) => ({ ...o, replica: i })) })),
    ),
  );
  return {
    outcomes: results.flatMap((r) => r.outcomes).sort((a, b) => a.sentAt - b.sentAt),
    dropped: results.reduce((a, r) => a + r.dropped, 0),
  };
}
