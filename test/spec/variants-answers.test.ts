// Over 300 lines on purpose: one table of ways to break the ST, ANS and OWN clauses, each a short flaw.
import { describe, expect, it } from 'vitest';
import type { FetchHandler, SimulatedLaunchContext } from '../../harness/index.js';
import type { CheckId } from '../../harness/scenario/schema.js';
import { limit } from '../helpers/limit.js';
import {
  echoingUpstream,
  hearingUpstreamErrors,
  rewritingErrors,
  rewritingModel,
  rewritingUsage,
} from '../fixtures/broken/answers.js';
import { referenceWith } from '../fixtures/broken/reference-with.js';
import { leavingBrokenStreamsOpen, relayingUpstreamStreamErrors } from '../fixtures/broken/stream-errors.js';
import { isErrorFrame, onAnswers, rewriteBody, rewriteFrames } from '../fixtures/broken/rewrite-answer.js';
import { digestChecks, judgeScenario } from './judge-pack.js';

// Other ways to break ST-*, ANS-* and OWN-* than the clause breakers of test/fixtures/broken:
// the spec is written for the space of mistakes, and each must fail its clause's check.

type HandlerFlaw = (inner: FetchHandler, ctx: SimulatedLaunchContext) => FetchHandler;
const streams = (res: Response) =>
  res.status === 200 && (res.headers.get('content-type') ?? '').includes('event-stream');
const isContent = (f: string) => /"delta":\{[^}]*"content":"[^"]/.test(f);

/** Every `nth` stream answer, its frames passed through `each` (which knows the frame's index). */
function everyNthStream(nth: number, each: (frame: string, i: number) => string[]): HandlerFlaw {
  let n = 0;
  return onAnswers(
    (res) => streams(res) && n++ % nth === 0,
    (res) => {
      let i = 0;
      return rewriteFrames(res, (f) => each(f, i++));
    },
  );
}

/** The first content frame of every `nth` stream, sent twice. */
function doublingFirstContent(nth: number): HandlerFlaw {
  let n = 0;
  return onAnswers(
    (res) => streams(res) && n++ % nth === 0,
    (res) => {
      let doubled = false;
      return rewriteFrames(res, (f) => {
        if (doubled || !isContent(f)) return [f];
        doubled = true;
        return [f, f];
      });
    },
  );
}

/** Content frames `a` and `b` (counting content frames only) sent in each other's place. */
function swappingContent(): HandlerFlaw {
  return onAnswers(streams, (res) => {
    let k = 0;
    let held: string | undefined;
    return rewriteFrames(
      res,
      (f) => {
        if (!isContent(f)) return [f];
        k++;
        if (k === 2) {
          held = f;
          return [];
        }
        if (k === 3 && held !== undefined) {
          const out = [f, held];
          held = undefined;
          return out;
        }
        return [f];
      },
      () => (held === undefined ? [] : [held]),
    );
  });
}

/** Remembers one plain answer and hands it, verbatim, to every `nth` plain request after it. */
function cachingAnswers(nth: number): HandlerFlaw {
  let last: { body: string; headers: Headers } | undefined;
  let n = 0;
  return (inner) => async (request) => {
    const body = (await request.clone().json()) as { stream?: boolean };
    if (!body.stream && last && ++n % nth === 0) return new Response(last.body, { status: 200, headers: last.headers });
    const res = await inner(request);
    if (body.stream || res.status !== 200) return res;
    const text = await res.text();
    last = { body: text, headers: new Headers(res.headers) };
    return new Response(text, { status: res.status, headers: res.headers });
  };
}

/** Completion tokens counted as a stream's content frames, as a router that counts chunks reports them. */
function countingChunks(): HandlerFlaw {
  return onAnswers(streams, (res) => {
    let chunks = 0;
    return rewriteFrames(res, (f) => {
      if (isContent(f)) chunks++;
      const data = /^data:\s*(\{.*"usage":\{.*\})\s*$/m.exec(f)?.[1];
      if (data === undefined) return [f];
      const j = JSON.parse(data) as { usage: { prompt_tokens: number; completion_tokens: number } };
      const usage = { ...j.usage, completion_tokens: chunks, total_tokens: j.usage.prompt_tokens + chunks };
      return [f.replace(data, JSON.stringify({ ...j, usage }))];
    });
  });
}

/** Its 503s with their status, Retry-After or headers changed by `edit`. */
function editing503(edit: (h: Headers) => void, status?: number): HandlerFlaw {
  return onAnswers(
    (res) => res.status === 503,
    async (res) => {
      const r = await rewriteBody(res, (t) => t, edit);
      return status === undefined ? r : new Response(r.body, { status, headers: r.headers });
    },
  );
}

/** Its own error answers on the Messages API rewritten into OpenAI's shape, as a router with one error writer does. */
function openAIShapedOnMessages(): HandlerFlaw {
  return (inner) => async (request) => {
    const res = await inner(request);
    if (res.status < 400 || !new URL(request.url).pathname.endsWith('/messages')) return res;
    return rewriteBody(res, (text) => {
      const j = JSON.parse(text) as { error: { type: string; message: string } };
      return JSON.stringify({ error: { message: j.error.message, type: j.error.type, code: null } });
    });
  };
}

/** Its own 503s' messages with `extra(ctx)` appended. */
function appending(extra: (ctx: SimulatedLaunchContext) => string): HandlerFlaw {
  return (inner, ctx) =>
    onAnswers(
      (res) => res.status === 503,
      (res) =>
        rewriteBody(res, (text) => {
          const j = JSON.parse(text) as { error: { message: string } };
          j.error.message += ` ${extra(ctx)}`;
          return JSON.stringify(j);
        }),
    )(inner);
}

const keyOf = (ctx: SimulatedLaunchContext, provider: string) =>
  ctx.endpoints.find((e) => e.id === provider)!.keys[0]!.value;

interface Variant {
  name: string;
  clause: string;
  check: CheckId;
  scenario: string;
  flaw: Parameters<typeof referenceWith>[0];
}

const VARIANTS: Variant[] = [
  {
    name: 'cuts every fifth stream after its fourth frame (a proxy idle timeout)',
    clause: 'ST-1',
    check: 'stream-integrity',
    scenario: '01-steady-state',
    flaw: { handler: everyNthStream(5, (f, i) => (i < 4 ? [f] : [])) },
  },
  {
    name: 'writes a broken stream’s error as an SSE comment, which clients skip',
    clause: 'ST-1',
    check: 'stream-integrity',
    scenario: '09-mid-stream-errors',
    flaw: {
      handler: onAnswers(streams, (res) => rewriteFrames(res, (f) => [isErrorFrame(f) ? ': upstream error' : f])),
    },
  },
  {
    name: 'ends a broken stream with [DONE], as if it were complete',
    clause: 'ST-1',
    check: 'stream-integrity',
    scenario: '09-mid-stream-errors',
    flaw: { handler: onAnswers(streams, (res) => rewriteFrames(res, (f) => [isErrorFrame(f) ? 'data: [DONE]' : f])) },
  },
  {
    name: 'stops writing where a stream breaks and leaves it open until the client gives up',
    clause: 'ST-1',
    check: 'stream-integrity',
    scenario: '09-mid-stream-errors',
    flaw: leavingBrokenStreamsOpen,
  },
  {
    name: 'sends the first content frame of every third stream twice (a chunk replayed on reconnect)',
    clause: 'ST-2',
    check: 'content-integrity',
    scenario: '01-steady-state',
    flaw: { handler: doublingFirstContent(3) },
  },
  {
    name: 'sends the second and third content frames of every stream in each other’s place',
    clause: 'ST-2',
    check: 'content-integrity',
    scenario: '01-steady-state',
    flaw: { handler: swappingContent() },
  },
  {
    name: 'routes every pinned request as auto (ignores the model asked for)',
    clause: 'ANS-1',
    check: 'answer-integrity',
    scenario: '01-steady-state',
    flaw: { handler: rewritingModel((asked) => (asked.includes('/') ? 'auto' : undefined)) },
  },
  {
    name: 'answers every fourth plain request from a cache of the last answer',
    clause: 'ANS-1',
    check: 'answer-integrity',
    scenario: '01-steady-state',
    flaw: { handler: cachingAnswers(4) },
  },
  {
    name: 'reports a stream’s content chunks as its completion tokens',
    clause: 'ANS-2',
    check: 'usage',
    scenario: '01-steady-state',
    flaw: { handler: countingChunks() },
  },
  {
    name: 'adds the OpenAI cookbook’s 3 reply-priming tokens to the metered prompt (counts twice)',
    clause: 'ANS-2',
    check: 'usage',
    scenario: '01-steady-state',
    flaw: { handler: rewritingUsage((m) => m.prompt_tokens + 3) },
  },
  {
    name: 'answers 500 where the reference answers 503 for capacity',
    clause: 'OWN-1',
    check: 'own-answers',
    scenario: '03-all-exhausted',
    flaw: { handler: editing503(() => {}, 500) },
  },
  {
    name: 'says Retry-After: 1 whatever the providers announced',
    clause: 'OWN-1',
    check: 'own-answers',
    scenario: '03-all-exhausted',
    flaw: { handler: editing503((h) => h.set('retry-after', '1')) },
  },
  {
    name: 'answers a capacity problem 502 Bad Gateway',
    clause: 'OWN-1',
    check: 'own-answers',
    scenario: '03-all-exhausted',
    flaw: { handler: editing503(() => {}, 502) },
  },
  {
    name: 'answers its 5xx errors as a 500 with an HTML page',
    clause: 'OWN-2',
    check: 'own-answers',
    scenario: '03-all-exhausted',
    flaw: {
      handler: rewritingErrors(500, '<html><body><h1>500 Internal Server Error</h1></body></html>', 'text/html', 500),
    },
  },
  {
    name: 'answers chat completions in Anthropic’s error shape',
    clause: 'OWN-2',
    check: 'own-answers',
    scenario: '03-all-exhausted',
    flaw: {
      handler: rewritingErrors(
        500,
        JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'No capacity.' } }),
        'application/json',
      ),
    },
  },
  {
    name: 'answers its errors as {"error": "<message>"} (a string, as web frameworks do)',
    clause: 'OWN-2',
    check: 'own-answers',
    scenario: '03-all-exhausted',
    flaw: { handler: rewritingErrors(500, JSON.stringify({ error: 'No provider has capacity.' }), 'application/json') },
  },
  {
    name: 'answers Messages requests with OpenAI’s error body',
    clause: 'OWN-2',
    check: 'own-answers',
    scenario: '03-all-exhausted',
    flaw: { handler: openAIShapedOnMessages() },
  },
  {
    name: 'names the key it used by its last four characters (sk-…0003)',
    clause: 'OWN-3',
    check: 'no-leak',
    scenario: '03-all-exhausted',
    flaw: { handler: appending((ctx) => `(key sk-…${keyOf(ctx, 'openai').slice(-4)})`) },
  },
  {
    name: 'forwards the upstream organisation header on its 503s',
    clause: 'OWN-3',
    check: 'no-leak',
    scenario: '03-all-exhausted',
    flaw: { handler: editing503((h) => h.set('openai-organization', 'org-main')) },
  },
  {
    name: 'names the upstream URL that refused it',
    clause: 'OWN-3',
    check: 'no-leak',
    scenario: '03-all-exhausted',
    flaw: {
      handler: appending((ctx) => `(${ctx.endpoints.find((e) => e.id === 'openai')!.baseUrl}/chat/completions: 429)`),
    },
  },
  {
    name: 'wraps the provider’s error text in its own words',
    clause: 'OWN-3',
    check: 'no-leak',
    scenario: '03-all-exhausted',
    flaw: {
      transport: hearingUpstreamErrors,
      handler: echoingUpstream((last) => `Last upstream error: ${last.split('.')[0]}.`),
    },
  },
  {
    name: 'ends a broken stream with the provider’s own error message in its error event',
    clause: 'OWN-3',
    check: 'no-leak',
    scenario: '09-mid-stream-errors',
    flaw: relayingUpstreamStreamErrors(),
  },
];

const two = limit(2);

describe('other ways to break ST-*, ANS-* and OWN-* fail the clause’s check', () => {
  it.concurrent.each(VARIANTS.map((v) => [`${v.clause} ${v.name}`, v] as const))(
    '%s',
    { timeout: 180_000 },
    async (_, v) => {
      const checks = await two(() => judgeScenario(v.scenario, referenceWith(v.flaw, v.name)));
      const r = checks.find((c) => c.id === v.check);
      expect(r?.verdict, `${v.check} on ${v.scenario}\n${digestChecks(checks)}`).toBe('fail');
      expect(r!.evidence.length).toBeGreaterThan(0);
    },
  );
});
