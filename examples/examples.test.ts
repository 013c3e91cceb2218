import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { judgeInProcess, type SimulatedRunData } from '../harness/index.js';
import { aiSdkHandler } from './ai-sdk-retries/handler.js';
import { createFetchRouter } from './fetch-router/router.js';
import { openaiSdkHandler } from './openai-sdk-retries/handler.js';
import { createUndiciRouter } from './undici-router/router.js';

// Things no one here wrote (or wrote against fetch or undici alone), judged in process in simulated
// time: their own setTimeout sleeps are simulated, the providers are the simulator behind msw (for
// fetch) and undici's global dispatcher (for undici).

const verdicts = (d: SimulatedRunData) => Object.fromEntries(d.checks.map((c) => [c.id, c.verdict]));
const scenario = (dir: string) => join(import.meta.dirname, dir, 'scenario.yaml');

describe('examples, judged in process in simulated time', () => {
  it('a small router written against fetch: honours Retry-After and fails over, but sends a herd when a wait ends', async () => {
    const d = await judgeInProcess({
      scenario: scenario('fetch-router'),
      router: ({ env }) => createFetchRouter(env),
      description: 'examples/fetch-router',
    });
    expect(verdicts(d)).toMatchObject({
      'no-429': 'pass',
      'retry-after': 'pass',
      deadline: 'pass',
      goodput: 'pass',
      'key-isolation': 'pass',
      'single-probe': 'fail',
    });
    // Simulated time: 20 s of load (and the 3 s waits inside it) ran without sleeping.
    expect(d.simulated.simulatedMs).toBeGreaterThanOrEqual(20_000);
    expect(d.rows.some((r) => r.provider === 'groq' && r.status === 200)).toBe(true);
  }, 120_000);

  it('a small router written against undici.request: one probe per wait end, so no herd, but a needless 503 beside it', async () => {
    const d = await judgeInProcess({
      scenario: scenario('undici-router'),
      router: ({ env }) => createUndiciRouter(env),
      description: 'examples/undici-router',
    });
    expect(verdicts(d)).toMatchObject({
      'no-429': 'pass',
      'retry-after': 'pass',
      deadline: 'pass',
      goodput: 'pass',
      'key-isolation': 'pass',
      'stream-integrity': 'pass',
      // Where the fetch router sends everyone back at once, this one sends a single probe.
      'single-probe': 'pass',
      // But a request that comes while the probe is out is refused at once (503) instead of
      // waiting for it: openai had capacity well within its 10 s deadline (FO-2 of docs/spec.md).
      'no-needless-error': 'fail',
    });
    expect(d.verdict).toBe('fail');
    // Its streams came through undici chunk by chunk, and it failed over to Groq during the 429s.
    expect(d.outcomes.filter((o) => o.stream && o.streamEnd === 'done').length).toBeGreaterThan(30);
    expect(d.rows.some((r) => r.provider === 'groq' && r.status === 200)).toBe(true);
    expect(d.rows.filter((r) => r.status === 429).length).toBeGreaterThan(0);
  }, 120_000);

  it('refuses a second judgement while one runs (fake timers and msw are global)', async () => {
    const first = judgeInProcess({
      scenario: scenario('fetch-router'),
      router: ({ env }) => createFetchRouter(env),
    });
    await expect(
      judgeInProcess({ scenario: scenario('fetch-router'), router: ({ env }) => createFetchRouter(env) }),
    ).rejects.toThrow(/already judging/);
    expect((await first).verdict).toBe('fail');
  }, 120_000);

  it('the openai SDK (AzureOpenAI, maxRetries 2) on an Azure daily limit sleeps the announced day inside the request', async () => {
    const d = await judgeInProcess({
      scenario: scenario('openai-sdk-retries'),
      router: ({ endpoints }) => openaiSdkHandler(endpoints[0]!.root, endpoints[0]!.keys[0]!.value),
      description: 'examples/openai-sdk-retries',
    });
    const walls = d.rows.filter((r) => r.status === 429);
    expect(walls.length).toBeGreaterThan(0);
    // The wall announces the rest of the day, in retry-after-ms.
    expect(Math.min(...walls.map((r) => r.hintMs ?? 0))).toBeGreaterThan(86_000_000);
    // openai-node 6 honours any retry-after-ms: it sleeps the day, so no retry reaches the provider
    // within the client's deadline, and every walled request times out instead of failing fast.
    expect(d.rows.filter((r) => (r.sdkRetryCount ?? 0) > 0)).toHaveLength(0);
    expect(d.outcomes.filter((o) => o.error === 'client-timeout')).toHaveLength(walls.length);
    expect(verdicts(d)).toMatchObject({ deadline: 'fail', 'retry-after': 'fail', 'no-429': 'pass', usage: 'pass' });
  }, 120_000);

  it("the Vercel AI SDK's maxRetries through a 429 storm: every caller waits on its own and they return together", async () => {
    const d = await judgeInProcess({
      scenario: scenario('ai-sdk-retries'),
      router: ({ endpoints }) => aiSdkHandler(endpoints[0]!.baseUrl, endpoints[0]!.keys[0]!.value),
      description: 'examples/ai-sdk-retries',
    });
    // The SDK retried (more attempts than requests) and, within its 2 retries, got every answer.
    expect(d.rows.length).toBeGreaterThan(d.outcomes.length);
    expect(verdicts(d)).toMatchObject({
      'no-429': 'pass',
      deadline: 'pass',
      goodput: 'pass',
      // single-probe judges only quiet wait ends (a scope the router paused): here each caller
      // retries on its own and the others' first attempts kept arriving through every announced
      // wait, so the router never paused and there is no release to judge: SKIP ("router did not
      // pause"), and retry-after, which judges exactly that, FAILs it.
      'single-probe': 'skip',
      'retry-after': 'fail',
    });
    expect(d.checks.find((c) => c.id === 'single-probe')?.reason).toBe('router did not pause; see retry-after');
  }, 120_000);
});
