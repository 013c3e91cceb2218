import { describe, expect, it } from 'vitest';
import type { Router } from '../../router/router.js';
import { routerFor } from '../helpers/router-fixture.js';
import { serve, type Served } from '../helpers/serve.js';
import { closeAfterEach } from '../helpers/close-after-each.js';

// A client can go away after the router committed a stream but before its first write (the
// server then returns the stream unread). Returning an async generator that never started skips
// its `finally`: the attempt's in-flight slot, its deadline timer and the upstream stream were
// kept until the provider finished on its own.
const SIM = `
version: 1
name: stream-unstarted
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-sim-openai }], latency: { ttft: 10ms, tokensPerSecond: 5, completionTokens: 60 } }
`;

let served: Served | undefined;
let router: Router | undefined;
closeAfterEach(() => [router, served]);

const inFlight = (r: Router) =>
  (r.state() as { targets: Array<{ capacity: { inFlight: number } }> }).targets.reduce(
    (n, t) => n + t.capacity.inFlight,
    0,
  );

describe('a committed stream returned before it was read', () => {
  it('frees its in-flight slot and hangs up the provider at once', async () => {
    served = await serve(SIM);
    router = routerFor(served);
    const r = await router.route({
      model: 'openai/gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: 'hello [tl:u1]' }],
    });
    expect(r.kind).toBe('stream');
    if (r.kind !== 'stream') return;
    expect(inFlight(router)).toBe(1);
    await r.rest.return(undefined);
    expect(inFlight(router)).toBe(0);
    // The provider's stream takes 12 s; hung up, the simulator records the end within moments.
    const ended = () => served!.sim.ledger.row(0)!.endAt !== null;
    for (let i = 0; i < 100 && !ended(); i++) await new Promise((res) => setTimeout(res, 50));
    expect(served.sim.ledger.row(0)!.end).toBe('client-abort');
    expect(served.sim.ledger.row(0)!.tokensOut).toBeLessThan(60);
  });
});
