import { describe, expect, it } from 'vitest';
import type { SimulatedLaunchContext } from '../../harness/index.js';
import type { Transport } from '../../router/index.js';
import { referenceWith, type Flaw } from '../fixtures/broken/reference-with.js';
import { deleteEverywhere, rewritingBody } from '../fixtures/broken/requests.js';
import { limit } from '../helpers/limit.js';
import { digestChecks, judgeScenario } from './judge-pack.js';

// Other ways to break REQ-1 and COST-2 than the clause breakers (test/fixtures/broken/requests.ts),
// as real routers get them wrong: each must fail the clause's check on the pack scenario.
type Body = Record<string, unknown>;
const isObj = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Renames every tool-result id (a router that re-numbers tool calls, or loses them: `call_0`). */
function renameToolResults(v: unknown): void {
  if (Array.isArray(v)) for (const x of v) renameToolResults(x);
  else if (isObj(v)) {
    for (const k of ['tool_call_id', 'tool_use_id', 'toolUseId', 'call_id'])
      if (typeof v[k] === 'string' && v.type !== 'function_call' && v.type !== 'tool_use' && !('function' in v))
        if (k !== 'tool_use_id' || v.type === 'tool_result') v[k] = 'call_0';
    for (const k in v) renameToolResults(v[k]);
  }
}

/** Caps the output tokens at 32, in every vendor's words (a router with a "safe" ceiling). */
function capMaxTokens(b: Body): void {
  for (const k of ['max_tokens', 'max_completion_tokens', 'max_output_tokens'])
    if (typeof b[k] === 'number') b[k] = Math.min(b[k], 32);
  if (isObj(b.generationConfig) && typeof b.generationConfig.maxOutputTokens === 'number')
    b.generationConfig.maxOutputTokens = Math.min(b.generationConfig.maxOutputTokens, 32);
}

/** Sends each call to a provider with the next of its keys in turn, whatever the router chose: a shared prefix sprayed over keys. */
function sprayingKeys(inner: Transport, ctx: SimulatedLaunchContext): Transport {
  let n = 0;
  return {
    send: (call, signal) => {
      const endpoint = ctx.endpoints.find((e) => call.url.startsWith(`${e.root}/`));
      if (!endpoint || endpoint.keys.length < 2) return inner.send(call, signal);
      const key = endpoint.keys[n++ % endpoint.keys.length]!.value;
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(call.headers)) {
        const own = endpoint.keys.find((x) => v.includes(x.value));
        headers[k] = own ? v.replace(own.value, key) : v;
      }
      return inner.send({ ...call, headers }, signal);
    },
    close: () => inner.close(),
  };
}

const VARIANTS: Array<{ name: string; check: string; flaw: Flaw }> = [
  {
    name: 'renames tool-result ids',
    check: 'request-fidelity',
    flaw: { transport: rewritingBody((b) => renameToolResults(b)) },
  },
  {
    name: 'drops temperature',
    check: 'request-fidelity',
    flaw: {
      transport: rewritingBody((b) => {
        delete b.temperature;
        if (isObj(b.generationConfig)) delete b.generationConfig.temperature;
      }),
    },
  },
  { name: 'caps max_tokens at 32', check: 'request-fidelity', flaw: { transport: rewritingBody(capMaxTokens) } },
  {
    name: 'drops seed',
    check: 'request-fidelity',
    flaw: {
      transport: rewritingBody((b) => {
        delete b.seed;
        if (isObj(b.generationConfig)) delete b.generationConfig.seed;
      }),
    },
  },
  {
    name: 'strips prompt_cache_key',
    check: 'cache-use',
    flaw: { transport: rewritingBody((b) => deleteEverywhere(b, 'prompt_cache_key')) },
  },
  { name: 'sprays a shared prefix over keys', check: 'cache-use', flaw: { transport: sprayingKeys } },
];

const two = limit(2);

describe('REQ-1 and COST-2 variants: other ways to break them fail their check', () => {
  it.concurrent.each(VARIANTS.map((v) => [v.name, v] as const))('%s', { timeout: 180_000 }, async (name, v) => {
    const checks = await two(() => judgeScenario('14-client-surface', referenceWith(v.flaw, name)));
    const verdict = checks.find((c) => c.id === v.check)!;
    expect(verdict.verdict, digestChecks(checks)).toBe('fail');
    expect(verdict.evidence.length).toBeGreaterThan(0);
  });
});
