import type { FleetSummary } from './fleet-run.js';

const s1 = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * One line on a fleet run: `fleet: 3 replicas, state in Redis, load round-robin (34/33/33
 * requests); redis faults: redis-down down at 4.0 s for 5.0 s (played 4.0–9.1 s)`.
 */
export function fleetLine(f: FleetSummary): string {
  const spread = f.spread === 'skewed' ? `skewed (${Math.round((f.skew ?? 0) * 100)} % to replica 0)` : 'round-robin';
  const requests = f.requests ? ` (${f.requests.join('/')} requests)` : '';
  const faults = f.redisFaults.map((r) => {
    const played =
      r.error !== undefined
        ? `: ${r.error}`
        : r.began === undefined
          ? ': not reached'
          : ` (played ${s1(r.began)}–${r.ended === undefined ? 'end of run' : s1(r.ended)})`;
    return `${r.id} ${r.mode} at ${s1(r.at)}${r.for !== undefined ? ` for ${s1(r.for)}` : ''}${played}`;
  });
  return `fleet: ${f.replicas} replica${f.replicas === 1 ? '' : 's'}, state ${f.store === 'redis' ? 'in Redis' : 'in memory (each its own)'}, load ${spread}${requests}${faults.length ? `; redis faults: ${faults.join('; ')}` : ''}`;
}
