// Child process: one replica's Redis store, for the propagation benchmark. The parent asks it to
// open circuits (it answers with the monotonic time of each update) and it reports the monotonic
// time at which it first saw each circuit another replica opened. process.hrtime is CLOCK_MONOTONIC,
// one clock for every process on the machine, so the parent can subtract the two.
import { createRedisStore, systemClock } from '../../../router/index.js';
import type { CircuitState } from '../../../router/index.js';

const [url, keyPrefix, replica, busyArg] = process.argv.slice(2);
const busy = Number(busyArg ?? 0);
const store = createRedisStore({
  url: url!,
  keyPrefix: keyPrefix!,
  replica: replica!,
  clock: systemClock,
  timeoutMs: 1000,
  flushMs: 20,
});
const seen = new Set<string>();
store.onRemoteChange((scope) => {
  if (seen.has(scope) || store.get(scope)?.state !== 'open') return;
  seen.add(scope);
  process.send!({ seen: scope, at: String(process.hrtime.bigint()) });
});
// A replica serving traffic is busy: hold the event loop `busy` ms of every 10 ms.
if (busy > 0)
  setInterval(() => {
    const until = performance.now() + busy;
    while (performance.now() < until);
  }, 10);
const until = Date.now() + 3_600_000;
process.on('message', (m: { open?: string; stop?: boolean }) => {
  if (m.open) {
    const at = process.hrtime.bigint();
    store.update(m.open, (): CircuitState => ({ state: 'open', until, reason: 'bench', opens: 1 }));
    process.send!({ opened: m.open, at: String(at) });
  }
  if (m.stop) void store.close().then(() => process.exit(0));
});
if (!(await store.joined(5000))) throw new Error(`replica ${replica} could not join ${url}`);
process.send!({ ready: replica });
