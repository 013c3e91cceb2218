import { describe, expect, it } from 'vitest';
import {
  type FetchHandler,
  type RunScenario,
  type SimulatedLaunchContext,
  type SimulatedRouterLauncher,
} from '../../harness/index.js';
import type { CheckId } from '../../harness/scenario/schema.js';
import type { Transport } from '../../router/index.js';
import { referenceWith } from '../fixtures/broken/reference-with.js';
import { providerOf, rewritingHeaders, withoutHeaders } from '../fixtures/broken/signals.js';
import { limit } from '../helpers/limit.js';
import { digestChecks, judgeScenario } from './judge-pack.js';

// Other ways to break SIG-* and PACE-* than the breakers docs/spec.md names: each must fail the
// clause's check (on any pack scenario, in simulated time), so that the suite catches the rule
// broken, not one example of it.

async function verdictOf(scenarioName: string, check: CheckId, launcher: (s: RunScenario) => SimulatedRouterLauncher) {
  const checks = await judgeScenario(scenarioName, launcher);
  const r = checks.find((c) => c.id === check)!;
  return `${r.verdict}: ${r.figure}\n${digestChecks(checks)}`;
}

type TransportFlaw = (inner: Transport, ctx: SimulatedLaunchContext) => Transport;

/** The router's failure answers carry their attempts: this one answers with the last attempt's status. */
const relayingLastStatus = (): ((inner: FetchHandler) => FetchHandler) => (inner) => async (request) => {
  const res = await inner(request);
  if (res.status < 500) return res;
  const text = await res.text();
  const attempts = (JSON.parse(text) as { error?: { attempts?: Array<{ status?: number }> } }).error?.attempts ?? [];
  const status = attempts.at(-1)?.status ?? res.status;
  return new Response(text, { status: status >= 200 && status <= 599 ? status : res.status, headers: res.headers });
};

/** Reads `retry-after-ms` as whole seconds of `retry-after` (a decoder that knows only delta-seconds, flooring). */
const msAsWholeSeconds: TransportFlaw = rewritingHeaders((res) => {
  const ms = res.headers['retry-after-ms'];
  if (typeof ms !== 'string') return res;
  const stripped = withoutHeaders(res, ['retry-after-ms', 'retry-after']);
  return { ...stripped, headers: { ...stripped.headers, 'retry-after': String(Math.floor(Number(ms) / 1000)) } };
});

/** Sends the calls made with key `from` with key `to` of the same provider. */
const keyForKey =
  (provider: string, from: string, to: string): TransportFlaw =>
  (inner, ctx) => {
    const keys = ctx.endpoints.find((e) => e.id === provider)!.keys;
    const [f, t] = [keys.find((k) => k.id === from)!.value, keys.find((k) => k.id === to)!.value];
    return {
      send: (call, signal) =>
        inner.send(
          {
            ...call,
            headers: Object.fromEntries(Object.entries(call.headers).map(([k, v]) => [k, v.replaceAll(f, t)])),
          },
          signal,
        ),
      close: () => inner.close(),
    };
  };

/** After a 429, the next call to that provider goes out `copies` times at once. */
const hedging =
  (copies: number): TransportFlaw =>
  (inner, ctx) => {
    const limited = new Set<string>();
    return {
      send: async (call, signal) => {
        const p = providerOf(ctx, call.url) ?? '';
        if (limited.delete(p))
          for (let i = 1; i < copies; i++)
            void inner.send(call, new AbortController().signal).then(
              (r) => r.text().catch(() => ''),
              () => '',
            );
        const res = await inner.send(call, signal);
        if (res.status === 429) limited.add(p);
        return res;
      },
      close: () => inner.close(),
    };
  };

/** An HTTP client's own retry of a hint-less 5xx after each of `gapsMs` (a function of the call's count, for jitter). */
const retrying =
  (gapsMs: (n: number) => readonly number[]): TransportFlaw =>
  (inner, ctx) => {
    let calls = 0;
    return {
      send: async (call, signal) => {
        let res = await inner.send(call, signal);
        for (const gap of gapsMs(calls++)) {
          if (
            res.status < 500 ||
            res.headers['retry-after'] !== undefined ||
            res.headers['retry-after-ms'] !== undefined
          )
            break;
          await res.text().catch(() => '');
          if (gap > 0) await ctx.clock.sleep(gap, signal);
          res = await inner.send(call, signal);
        }
        return res;
      },
      close: () => inner.close(),
    };
  };

interface Variant {
  clause: string;
  name: string;
  scenario: string;
  check: CheckId;
  launcher: (s: RunScenario) => SimulatedRouterLauncher;
}

const VARIANTS: Variant[] = [
  {
    clause: 'SIG-1',
    name: 'one attempt, and the provider’s status relayed (LiteLLM-style re-raise)',
    scenario: '02-429-hint-forms',
    check: 'no-429',
    launcher: referenceWith(
      { config: { retry: { maxAttempts: 1 } }, handler: relayingLastStatus() },
      'relays the last attempt’s status',
    ),
  },
  {
    clause: 'SIG-1',
    name: 'the router’s own 503 answered as a 529',
    scenario: '03-all-exhausted',
    check: 'no-429',
    launcher: referenceWith(
      {
        handler: (inner) => async (request) => {
          const res = await inner(request);
          return res.status === 503 ? new Response(res.body, { status: 529, headers: res.headers }) : res;
        },
      },
      'answers 529 for its own 503',
    ),
  },
  {
    clause: 'SIG-2',
    name: 'retry-after-ms not read, and a 500 ms cooldown of its own instead',
    scenario: '02-429-hint-forms',
    check: 'retry-after',
    launcher: referenceWith(
      {
        config: { breaker: { openFor: 500 } },
        transport: rewritingHeaders((r) => withoutHeaders(r, ['retry-after-ms'])),
      },
      'ignores retry-after-ms and cools down for 500 ms',
    ),
  },
  {
    clause: 'SIG-2',
    name: 'retry-after-ms floored to whole seconds',
    scenario: '03-all-exhausted',
    check: 'retry-after',
    launcher: referenceWith({ transport: msAsWholeSeconds }, 'reads retry-after-ms as whole seconds'),
  },
  {
    clause: 'SIG-3',
    // Configured as org-b's key, sending org-a's: the router keeps the wait to the key and the
    // organisation it was told, while the vendor's scope (the real key) is refused elsewhere. (Two
    // keys of one organisation no longer show it: the texts name the organisation, and the
    // reference router closes the whole of org-a.)
    name: 'two OpenAI deployments on one key, waits kept per deployment',
    scenario: '12-keys-orgs-long-waits',
    check: 'retry-after',
    launcher: referenceWith({ transport: keyForKey('openai', 'b1', 'a1') }, 'waits per deployment'),
  },
  {
    clause: 'SIG-4',
    name: 'the probe sent three times when every provider’s wait ends',
    scenario: '03-all-exhausted',
    check: 'single-probe',
    launcher: referenceWith({ transport: hedging(3) }, 'sends the probe thrice'),
  },
  {
    clause: 'PACE-1',
    name: 'a hint-less 5xx resent after 10 ms',
    scenario: '04-overload-storm',
    check: 'no-blind-retry',
    launcher: referenceWith({ transport: retrying(() => [10]) }, 'resends a 5xx after 10 ms'),
  },
  {
    clause: 'PACE-2',
    name: 'a fixed 1 s retry loop',
    scenario: '04-overload-storm',
    check: 'no-blind-retry',
    launcher: referenceWith({ transport: retrying(() => [1000, 1000]) }, 'resends a 5xx every second'),
  },
  {
    clause: 'PACE-2',
    name: 'a fixed 150 ms loop with ±30 % jitter',
    scenario: '04-overload-storm',
    check: 'no-blind-retry',
    launcher: referenceWith(
      { transport: retrying((n) => [150 * (0.7 + ((n * 7) % 10) / 16), 150 * (0.7 + ((n * 3 + 5) % 10) / 16)]) },
      'resends a 5xx every 150 ms, jittered',
    ),
  },
];

const two = limit(2);

describe('other routers that break SIG-* and PACE-* fail the clause’s check', () => {
  it.concurrent.each(VARIANTS.map((v) => [`${v.clause}: ${v.name}`, v] as const))(
    '%s',
    { timeout: 180_000 },
    async (_, v) => {
      expect(await two(() => verdictOf(v.scenario, v.check, v.launcher))).toMatch(/^fail: /);
    },
  );
});
