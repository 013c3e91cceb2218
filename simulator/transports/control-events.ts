import { writeChunk, type ServerReply, type ServerRequest } from './server-exchange.js';
import type { Ledger } from '../ledger/ledger.js';
import type { Simulator } from '../simulator.js';

/**
 * One attempt as the event stream sends it: [s since start, provider, status, announced wait ms,
 * key, model, ledger seq]. The seq lets a page that read the ledger first drop what it already has.
 */
export type EventAttempt = [number, string, number, number | null, string, string | null, number];

/** Attempts sent per tick at most; the rest are counted (`skipped`), never queued without bound. */
const MAX_ATTEMPTS_PER_TICK = 2000;

/**
 * Serves the simulator's world as server-sent events: a `hello` (scenario, providers, the
 * scenario's fault catalogue), sent once every attempt that ends later is bound for a tick, then every `intervalMs` a `tick` with the attempts that ended since
 * the last one, each provider's totals by status, the quota levels and the faults (active or not).
 * Ends when the client leaves or the server closes.
 */
export function streamControlEvents(
  sim: Simulator,
  req: ServerRequest,
  res: ServerReply,
  intervalMs = 500,
  ledger: Ledger = sim.ledger,
): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    // No `connection: keep-alive`: HTTP/1.1 keeps the connection anyway, and HTTP/2 forbids the field.
    'cache-control': 'no-store',
  });
  const at = (ms: number) => Math.round(ms - sim.startedAt) / 1000;
  const totals: Record<string, Record<string, number>> = {};
  for (const p of sim.scenario.providers) totals[p.id] = {};
  const count = (provider: string, status: number) => {
    const byStatus = (totals[provider] ??= {});
    byStatus[status] = (byStatus[status] ?? 0) + 1;
  };
  for (const row of ledger.rowsIterator()) count(row.provider, row.status);
  let pending: EventAttempt[] = [];
  let skipped = 0;
  const off = ledger.addSink((row) => {
    count(row.provider, row.status);
    if (pending.length < MAX_ATTEMPTS_PER_TICK)
      pending.push([at(row.arrivalAt), row.provider, row.status, row.hintMs, row.key, row.model, row.seq]);
    else skipped++;
  });
  const send = (event: string, data: unknown) => writeChunk(res, `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  send('hello', {
    scenario: sim.scenario.name,
    seed: sim.seed,
    // Attempts that ended before this hello are in the ledger (GET /ledger), not in the ticks.
    startedAt: sim.startedAt,
    providers: sim.scenario.providers.map((p) => ({ id: p.id, vendor: p.vendor })),
    catalogue: sim.scenario.faults,
    intervalMs,
  });
  const tick = () => {
    send('tick', {
      t: at(sim.clock.now()),
      attempts: pending,
      skipped,
      totals,
      quota: sim.quota(),
      faults: sim.listFaults().map(({ id, kind, origin, startAt, endAt, active, enabled, applied }) => ({
        id,
        kind,
        origin,
        startAt: at(startAt),
        endAt: endAt === null ? null : at(endAt),
        active,
        enabled,
        applied,
      })),
    });
    pending = [];
    skipped = 0;
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  // Both the request and the response close: stop once.
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    off();
  };
  req.on('close', stop);
  res.on('close', stop);
}
