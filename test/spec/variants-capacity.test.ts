import { describe, expect, it } from 'vitest';
import type {
  FetchHandler,
  RunScenario,
  SimulatedLaunchContext,
  SimulatedRouterLauncher,
} from '../../harness/index.js';
import type { CheckId } from '../../harness/scenario/schema.js';
import type { Transport } from '../../router/index.js';
import {
  hedgingEvery,
  resendingAfterSuccess,
  retryingClientErrors,
  unavailableFor400,
} from '../fixtures/broken/capacity.js';
import { referenceWith } from '../fixtures/broken/reference-with.js';
import { limit } from '../helpers/limit.js';
import { digestChecks, judgeScenario } from './judge-pack.js';

// Other ways to break CAP-1, CE-1 and COST-1 than the clause breakers of test/fixtures/broken/capacity.ts,
// as real routers do: each must fail its clause's check on a pack scenario, in simulated time.

/** Puts a per-call line at the head of the system prompt (a timestamp, a request id): no prefix is ever the same twice. */
function bustingTheCache(inner: Transport): Transport {
  let calls = 0;
  return {
    send: (call, signal) =>
      inner.send(
        call.body
          ? {
              ...call,
              body: call.body.replace('"text":"You are assistant', `"text":"Call ${++calls}. You are assistant`),
            }
          : call,
        signal,
      ),
    close: () => inner.close(),
  };
}

/** Sends a refused call twice more to the same provider before giving up with its 400. */
function retryingClientErrorsInPlace(inner: Transport): Transport {
  return {
    send: async (call, signal) => {
      let res = await inner.send(call, signal);
      for (let i = 0; i < 2 && res.status === 400; i++) {
        res.dispose();
        res = await inner.send(call, signal);
      }
      return res;
    },
    close: () => inner.close(),
  };
}

/** Holds a 400 for two seconds before handing it to the client (a retry loop that gives up late). */
function holding400(inner: FetchHandler, ctx: SimulatedLaunchContext): FetchHandler {
  return async (request) => {
    const res = await inner(request);
    if (res.status === 400) await ctx.clock.sleep(2000);
    return res;
  };
}

interface Variant {
  clause: string;
  check: CheckId;
  scenario: string;
  launcher: (scenario: RunScenario) => SimulatedRouterLauncher;
}

const VARIANTS: Record<string, Variant> = {
  'busts-the-cache': {
    clause: 'CAP-1',
    check: 'goodput',
    scenario: '16-prompt-cache',
    launcher: referenceWith({ transport: bustingTheCache }, 'puts a per-call line at the head of the system prompt'),
  },
  'turns-400-into-503': {
    clause: 'CE-1',
    check: 'client-errors',
    scenario: '15-client-errors',
    launcher: referenceWith({ handler: unavailableFor400 }, 'answers 503 for a 400'),
  },
  'retries-400-in-place': {
    clause: 'CE-1',
    check: 'client-errors',
    scenario: '15-client-errors',
    launcher: referenceWith({ transport: retryingClientErrorsInPlace }, 'retries a 400 twice on the same provider'),
  },
  // Also feeds each 400 to the provider's health as a server error: circuits open on the invalid
  // requests and valid ones are refused too (goodput and no-needless-error fail beside it).
  'retries-400-as-a-5xx-everywhere': {
    clause: 'CE-1',
    check: 'client-errors',
    scenario: '15-client-errors',
    launcher: referenceWith(
      { transport: retryingClientErrors },
      "retries a provider's 400 on every provider, as a 5xx",
    ),
  },
  'holds-400': {
    clause: 'CE-1',
    check: 'client-errors',
    scenario: '15-client-errors',
    launcher: referenceWith({ handler: holding400 }, 'holds a 400 for two seconds'),
  },
  'resends-after-success': {
    clause: 'COST-1',
    check: 'duplicate-work',
    scenario: '16-prompt-cache',
    launcher: referenceWith({ transport: resendingAfterSuccess(3) }, 'sends a request again after it succeeded'),
  },
  'hedges-every-call': {
    clause: 'COST-1',
    check: 'duplicate-work',
    scenario: '02-429-hint-forms',
    launcher: referenceWith({ transport: hedgingEvery(1) }, 'hedges every call and never cancels the loser'),
  },
};

const two = limit(2);

describe('other broken routers fail the clause they break', () => {
  it.concurrent.each(Object.entries(VARIANTS))('%s', { timeout: 180_000 }, async (name, v) => {
    const checks = await two(() => judgeScenario(v.scenario, v.launcher));
    const result = checks.find((c) => c.id === v.check);
    expect(result?.verdict, `${name} (${v.clause}) on ${v.scenario}:\n${digestChecks(checks)}`).toBe('fail');
    expect(result!.evidence.length).toBeGreaterThan(0);
  });
});
