import { describe, expect, it } from 'vitest';
import { world } from '../../test/helpers/evidence.js';
import { parseRunScenario as parseScenario } from '../scenario/parse-run-scenario.js';
import { contentDigest } from '../../simulator/index.js';
import { applyStream, readAnswer, StreamScanner, type ClientOutcome } from './client-outcome.js';
import { createRequestPlanner } from './request-plan.js';
import { arrivalOffsets } from './schedule.js';

const loadOf = (yaml: string) => world(`load: ${yaml}`).load!;

describe('arrivalOffsets', () => {
  it('spaces sends evenly at the rate and stops at the duration', () => {
    expect([...arrivalOffsets(loadOf('{ duration: 1s, rate: 4 }'))]).toEqual([0, 250, 500, 750]);
  });
  it('follows a ramp and the request cap', () => {
    expect([...arrivalOffsets(loadOf('{ duration: 2s, ramp: [{ rate: 2, for: 1s }, { rate: 4, for: 1s }] }'))]).toEqual(
      [0, 500, 1000, 1250, 1500, 1750],
    );
    expect([...arrivalOffsets(loadOf('{ duration: 10s, rate: 100, maxRequests: 3 }'))]).toHaveLength(3);
  });
});

describe('createRequestPlanner with conversations', () => {
  it('opens each request with its conversation system prompt, sized in tokens and marked for caching', () => {
    const load = loadOf(
      '{ duration: 1s, rate: 1, requests: { conversations: { count: 3, systemTokens: 1500, promptCacheKey: true } } }',
    );
    const plan = createRequestPlanner(load, 7, 'r');
    const bodies = Array.from({ length: 30 }, (_, n) => JSON.parse(plan(n).body));
    const systems = new Map<string, string>();
    for (const b of bodies) {
      const [system, user] = b.messages;
      expect(system.role).toBe('system');
      expect(system.content[0].cache_control).toEqual({ type: 'ephemeral' });
      expect(system.content[0].text).toHaveLength(6000);
      expect(user.role).toBe('user');
      // One system text per conversation, named the same way every time.
      const seen = systems.get(b.prompt_cache_key);
      if (seen !== undefined) expect(system.content[0].text).toBe(seen);
      systems.set(b.prompt_cache_key, system.content[0].text);
    }
    expect(systems.size).toBe(3);
    expect(new Set(systems.values()).size).toBe(3);
    const plain = createRequestPlanner(
      loadOf(
        '{ duration: 1s, rate: 1, requests: { conversations: { count: 1, systemTokens: 10, cacheControl: false } } }',
      ),
      7,
      'r',
    )(0);
    expect(JSON.parse(plain.body).messages[0].content).toEqual(expect.any(String));
  });
});

describe('createRequestPlanner', () => {
  const load = loadOf(
    `{ duration: 1s, rate: 1, requests: { models: [auto, { model: openai/gpt-4o-mini, weight: 3 }], stream: 0.5, maxTokens: 32, deadline: 3s }, headers: { x-portkey-config: '{"key":"\${THROTTLELAB_OPENAI_API_KEY}"}' } }`,
  );
  const env = { THROTTLELAB_OPENAI_API_KEY: 'sk-a' };

  it('plans the same request for the same seed and number', () => {
    expect(createRequestPlanner(load, 7, 'r')(12)).toEqual(createRequestPlanner(load, 7, 'r')(12));
    expect(createRequestPlanner(load, 7, 'r')(12).body).not.toEqual(createRequestPlanner(load, 8, 'r')(12).body);
  });

  it('carries the correlation id as a header and a prompt marker, the deadline, and the extra headers', () => {
    const p = createRequestPlanner(load, 7, 'r', env)(3);
    expect(p.id).toBe('r-3');
    expect(p.headers).toMatchObject({
      'x-throttlelab-correlation-id': 'r-3',
      'x-throttlelab-deadline-ms': '3000',
      'x-portkey-config': '{"key":"sk-a"}',
    });
    const body = JSON.parse(p.body);
    expect(body.messages[0].content).toMatch(/^\[tl:r-3\] /);
    expect(body.max_tokens).toBe(32);
    if (body.stream) expect(body.stream_options).toEqual({ include_usage: true });
  });

  it('writes bodies exactly as JSON.stringify writes them, keys in order, with and without conversations', () => {
    const withConversations = loadOf(
      `{ duration: 1s, rate: 1, requests: { models: [auto, { model: 'a"b', weight: 2 }], stream: 0.5, maxTokens: 32, conversations: { count: 2, systemTokens: 12, promptCacheKey: true } } }`,
    );
    const withoutMax = loadOf(
      '{ duration: 1s, rate: 1, requests: { stream: 0.5, conversations: { count: 2, systemTokens: 12, cacheControl: false } } }',
    );
    for (const l of [load, withConversations, withoutMax]) {
      const plan = createRequestPlanner(l, 7, 'r');
      for (let n = 0; n < 40; n++) {
        const body = plan(n).body;
        const parsed = JSON.parse(body) as Record<string, unknown>;
        expect(JSON.stringify(parsed)).toBe(body);
        const order = ['model', 'messages', 'stream', 'prompt_cache_key', 'stream_options', 'max_tokens'];
        expect(Object.keys(parsed)).toEqual(order.filter((k) => k in parsed));
      }
    }
  });

  it('mixes models by weight and streams by share', () => {
    const plan = createRequestPlanner(load, 7, 'r');
    const all = Array.from({ length: 400 }, (_, n) => plan(n));
    const pinned = all.filter((p) => p.model === 'openai/gpt-4o-mini').length / all.length;
    const streams = all.filter((p) => p.stream).length / all.length;
    expect(pinned).toBeGreaterThan(0.65);
    expect(pinned).toBeLessThan(0.85);
    expect(streams).toBeGreaterThan(0.4);
    expect(streams).toBeLessThan(0.6);
  });

  it('refuses header variables the router is not given, located', () => {
    const r = parseScenario(`version: 1
name: x
providers:
  - { id: openai, vendor: openai, models: [m], keys: [{ id: main, value: sk-1 }] }
load:
  duration: 1s
  rate: 1
  headers: { x-config: '\${HOME}' }
`);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.issues.map((i) => `${i.code} ${i.path.join('.')}: ${i.message}`)).toEqual([
      'SCENARIO_INVALID_VALUE load.headers.x-config: unknown variable "${HOME}": headers may use the THROTTLELAB_* variables of this scenario\'s providers, such as THROTTLELAB_OPENAI_BASE_URL',
    ]);
  });
});

describe('StreamScanner', () => {
  it('finds the first content, usage and [DONE] across chunk boundaries', () => {
    const s = new StreamScanner();
    expect(s.push('data: {"choices":[{"delta":{"role":"assistant"}}]}\n\nda')).toBe(false);
    expect(s.push('ta: {"choices":[{"delta":{"content":"Hi"}}]}\n\n')).toBe(true);
    s.push(
      ': keep-alive\n\ndata: {"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":2}}\n\ndata: [DONE]\n\n',
    );
    expect({ end: s.end, usage: s.usage }).toEqual({ end: 'done', usage: { prompt: 7, completion: 2 } });
  });
  it('tells an error event from a silent end', () => {
    const errored = new StreamScanner();
    errored.push('data: {"choices":[{"delta":{"content":"Hi"}}]}\n\ndata: {"error":{"message":"boom"}}\n\n');
    expect(errored.end).toBe('error-event');
    expect(errored.errorText).toBe('{"error":{"message":"boom"}}');
    const named = new StreamScanner();
    named.push('event: error\ndata: {}\n\n');
    expect(named.end).toBe('error-event');
    const out = { status: 200 } as ClientOutcome;
    applyStream(out, named);
    // What the router said in it, for the no-leak check to read.
    expect(out.detail).toBe('{}');
    const silent = new StreamScanner();
    silent.push('data: {"choices":[{"delta":{"content":"Hi"}}]}\n\n');
    expect(silent.end).toBe('silent');
  });
  it('takes a finish_reason without [DONE] as complete (a warning, not a silent end)', () => {
    const s = new StreamScanner();
    s.push('data: {"choices":[{"delta":{"content":"Hi"},"finish_reason":null}]}\n\n');
    s.push('data: {"choices":[{"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}');
    // The last frame had no blank line after it: a client still reads it when the body ends.
    const out = { status: 200 } as ClientOutcome;
    applyStream(out, s);
    expect(out).toMatchObject({ streamEnd: 'finish', usage: { prompt: 1, completion: 1 }, frames: 2 });
  });
  it('digests the content a client reads, frame by frame, as the simulator digests the whole text', () => {
    const s = new StreamScanner();
    for (const piece of ['Hello', ' wor', 'ld.'])
      s.push(`data: ${JSON.stringify({ choices: [{ delta: { content: piece } }] })}\n\n`);
    s.push('data: [DONE]\n\n');
    expect(s.content).toEqual({ contentDigest: contentDigest('Hello world.'), contentChars: 12 });
    const twice = new StreamScanner();
    for (const piece of ['Hello', ' wor', ' wor', 'ld.'])
      twice.push(`data: ${JSON.stringify({ choices: [{ delta: { content: piece } }] })}\n\n`);
    expect(twice.content.contentDigest).not.toBe(contentDigest('Hello world.'));
  });
  it('reads a plain JSON body answering a stream request as a silent stream with its content', () => {
    const s = new StreamScanner();
    s.push('{"choices":[{"index":0,"message":{"content":"Hi"}}]}');
    const out = { status: 200 } as ClientOutcome;
    applyStream(out, s);
    expect(out).toMatchObject({ streamEnd: 'silent', frames: 0, contentDigest: contentDigest('Hi') });
  });
});

describe('readAnswer', () => {
  it('reads usage from an answer and the code from an error', () => {
    expect(readAnswer(200, '{"usage":{"prompt_tokens":3,"completion_tokens":4}}')).toEqual({
      usage: { prompt: 3, completion: 4 },
      error: null,
      detail: null,
      contentDigest: null,
    });
    expect(readAnswer(503, '{"error":{"code":"no_capacity"}}')).toMatchObject({
      usage: null,
      error: 'no_capacity',
      detail: '{"error":{"code":"no_capacity"}}',
    });
    expect(readAnswer(502, '<html>')).toMatchObject({ usage: null, error: '502', detail: '<html>' });
    expect(readAnswer(200, '{"choices":[{"index":0,"message":{"content":"Hi there."}}]}')).toMatchObject({
      contentDigest: contentDigest('Hi there.'),
      contentChars: 9,
    });
  });
  it('reads an Anthropic Messages answer: its text blocks, and its prompt with the cached tokens counted in', () => {
    const answer = {
      type: 'message',
      content: [
        { type: 'text', text: 'Hi ' },
        { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} },
        { type: 'text', text: 'there.' },
      ],
      usage: { input_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 20, output_tokens: 4 },
    };
    expect(readAnswer(200, JSON.stringify(answer))).toEqual({
      usage: { prompt: 125, completion: 4 },
      error: null,
      detail: null,
      contentDigest: contentDigest('Hi there.'),
      contentChars: 9,
    });
    expect(readAnswer(200, 'null')).toMatchObject({ usage: null, error: null, contentDigest: null });
  });
});

describe('causes a report can name', () => {
  it('keeps the first 300 bytes of an error body, and names a local error with its code and cause', async () => {
    const { bodySnippet, describeLocalError, readAnswer } = await import('./client-outcome.js');
    const body = JSON.stringify({ error: { message: `TypeError: ${'x'.repeat(400)}`, code: 'upstream_error' } });
    const read = readAnswer(500, body);
    expect(read.error).toBe('upstream_error');
    expect(Buffer.byteLength(read.detail!.replace(/…$/, ''))).toBeLessThanOrEqual(300);
    expect(read.detail).toMatch(/^\{"error":\{"message":"TypeError: x+…$/);
    expect(readAnswer(200, '{}').detail).toBeNull();
    expect(bodySnippet('é'.repeat(200))).toMatch(/^é{150}…$/);
    const local = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('invalid x-config header'), { code: 'UND_ERR_INVALID_ARG' }),
    });
    expect(describeLocalError(local)).toBe('fetch failed (cause: UND_ERR_INVALID_ARG: invalid x-config header)');
  });
});
