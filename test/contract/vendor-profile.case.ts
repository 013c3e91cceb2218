import { EventStreamCodec } from '@smithy/core/event-streams';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { expect, it } from 'vitest';
import type { z } from 'zod';
import { createFakeClock, createSimulator, VENDORS, type HintForm, type VendorId } from '../../simulator/index.js';
import { collectReply, type Collected } from '../helpers/collect-reply.js';
import { scenarioFrom, type ChatCall } from '../helpers/scenario.js';
import { encodeContext } from '../helpers/vendor-context.js';

/** How a vendor's success bodies and streams are shaped. */
export type Dialect = 'openai' | 'anthropic' | 'gemini' | 'bedrock';

/** An error answer the contract expects: its status and the vendor's envelope. */
export interface ErrorExpectation {
  status: number;
  envelope: z.ZodType;
}

/** What one vendor profile must do, with the ways it legitimately differs from the others. */
export interface VendorContract {
  /** The provider's model and quotas (YAML flow sequences), served as provider `<vendor>` with key `sk-<vendor>`. */
  model: string;
  quotas: string;
  /** Requests admitted before the quota answers the next one with the 429 below. */
  admitted: number;
  /** Builds a vendor-native chat request (provider id = vendor id). */
  call(opts?: { stream?: boolean; key?: string; model?: string; body?: string }): ChatCall;
  /** The header that carries the credential, removed for the missing-key case. */
  keyHeader: string;
  /** Azure and Gemini name the model in the path, so the ledger knows it before the body is read. */
  modelInPath: boolean;
  dialect: Dialect;
  missingKey: ErrorExpectation;
  wrongKey: ErrorExpectation;
  unknownModel: ErrorExpectation;
  badJson: ErrorExpectation;
  quota: ErrorExpectation & {
    /** The form the ledger records for the wait; null where the vendor announces none. */
    hintForm: HintForm | null;
    /** Reads the announced wait (ms) where the vendor documents it. */
    announced(reply: Collected): number | undefined;
  };
  /** Rate-limit headers a success carries; empty where the vendor sends none. */
  rateLimitHeaders: readonly string[];
  /** The header naming the request; null where the vendor sends none. */
  requestIdHeader: string | null;
}

/** Options for `runVendorProfileContract`. */
export interface VendorProfileContractOptions {
  vendor: VendorId;
  /** Undefined when the table lacks the vendor: the suite then fails loudly. */
  contract: VendorContract | undefined;
}

const START = Date.UTC(2026, 0, 1, 0, 0, 0);

/** Reads a Go-style duration (`20s`, `1m0s`, `12ms`) as ms, for waits stated the way OpenAI writes them. */
export function goDurationMs(text: string | undefined): number | undefined {
  const m = /^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+)ms)?$/.exec(text ?? '');
  if (!m || text === '') return undefined;
  return Number(m[1] ?? 0) * 3_600_000 + Number(m[2] ?? 0) * 60_000 + Number(m[3] ?? 0) * 1000 + Number(m[4] ?? 0);
}

interface Answer {
  text: string;
  input: number;
  output: number;
  total?: number;
}

function sseData(body: string): string[] {
  return body
    .split(/\r?\n\r?\n/)
    .flatMap((event) => event.split(/\r?\n/).filter((l) => l.startsWith('data: ')))
    .map((l) => l.slice(6));
}

const READERS: Record<
  Dialect,
  { answer(body: string): Answer; stream(body: string): { text: string; ended: boolean } }
> = {
  openai: {
    answer(body) {
      const j = JSON.parse(body);
      const u = j.usage;
      return {
        text: j.choices[0].message.content,
        input: u.prompt_tokens,
        output: u.completion_tokens,
        total: u.total_tokens,
      };
    },
    stream(body) {
      const data = sseData(body);
      const chunks = data.filter((d) => d !== '[DONE]').map((d) => JSON.parse(d));
      const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
      return { text, ended: data.at(-1) === '[DONE]' };
    },
  },
  anthropic: {
    answer(body) {
      const j = JSON.parse(body);
      return { text: j.content[0].text, input: j.usage.input_tokens, output: j.usage.output_tokens };
    },
    stream(body) {
      const events = sseData(body).map((d) => JSON.parse(d));
      const text = events.map((e) => (e.type === 'content_block_delta' ? e.delta.text : '')).join('');
      return { text, ended: events.at(-1)?.type === 'message_stop' };
    },
  },
  gemini: {
    answer(body) {
      const j = JSON.parse(body);
      const u = j.usageMetadata;
      return {
        text: j.candidates[0].content.parts[0].text,
        input: u.promptTokenCount,
        output: u.candidatesTokenCount,
        total: u.totalTokenCount,
      };
    },
    stream(body) {
      const chunks = sseData(body).map((d) => JSON.parse(d));
      const text = chunks.map((c) => c.candidates[0].content.parts[0].text).join('');
      // Gemini sends no terminator: the last chunk carries the finish reason.
      return { text, ended: chunks.length > 0 && Boolean(chunks.at(-1).candidates[0].finishReason) };
    },
  },
  // §14.4: Converse JSON; ConverseStream as AWS event-stream messages (the body is latin1 bytes).
  bedrock: {
    answer(body) {
      const j = JSON.parse(body);
      return {
        text: j.output.message.content[0].text,
        input: j.usage.inputTokens,
        output: j.usage.outputTokens,
        total: j.usage.totalTokens,
      };
    },
    stream(body) {
      const codec = new EventStreamCodec(toUtf8, fromUtf8);
      const bytes = new Uint8Array(Buffer.from(body, 'latin1'));
      const events: Array<{ type: string; data: { delta?: { text?: string } } }> = [];
      for (let at = 0; at + 4 <= bytes.length;) {
        const total = new DataView(bytes.buffer, bytes.byteOffset + at, 4).getUint32(0);
        const m = codec.decode(bytes.subarray(at, at + total));
        events.push({ type: String(m.headers[':event-type']?.value), data: JSON.parse(toUtf8(m.body)) });
        at += total;
      }
      const text = events.map((e) => (e.type === 'contentBlockDelta' ? (e.data.delta?.text ?? '') : '')).join('');
      return { text, ended: events.at(-1)?.type === 'metadata' };
    },
  },
};

function expectEnvelope(reply: Collected, expected: ErrorExpectation): void {
  expect(reply.status).toBe(expected.status);
  expect(reply.headers['content-type']).toMatch(/json/);
  expected.envelope.parse(JSON.parse(reply.body));
}

/**
 * The behaviour every vendor profile must have, driven through the simulator in process: answers,
 * streams, auth and validation errors, quota 429s with the vendor's wait, headers and the ledger.
 */
export function runVendorProfileContract({ vendor, contract }: VendorProfileContractOptions): void {
  if (!contract) {
    it('has an entry in the contract table', () => {
      throw new Error(`vendor profile "${vendor}" is registered but has no entry in the contract table; add one`);
    });
    return;
  }
  const c = contract;

  function setup() {
    const clock = createFakeClock(START);
    const yaml = `version: 1\nname: contract-${vendor}\nproviders:\n  - { id: ${vendor}, vendor: ${vendor}, models: [${c.model}], keys: [{ id: main, value: sk-${vendor} }], quotas: ${c.quotas} }\n`;
    const sim = createSimulator(scenarioFrom(yaml), { seed: 5, clock });
    const run = (call: ChatCall) => collectReply(sim.handle(call), clock);
    return { sim, clock, run };
  }

  const missingKey = () => {
    const call = c.call();
    delete call.headers[c.keyHeader];
    return call;
  };

  /** Every kind of call the contract makes, with the ledger row each must leave. */
  function calls(): Array<{ call: ChatCall; key: string; model: string | null }> {
    const pathModel = c.modelInPath ? c.model : null;
    return [
      { call: c.call(), key: 'main', model: c.model },
      { call: c.call({ stream: true }), key: 'main', model: c.model },
      { call: missingKey(), key: 'none', model: pathModel },
      { call: c.call({ key: 'sk-wrong' }), key: 'unknown', model: pathModel },
      { call: c.call({ model: 'no-such-model' }), key: 'main', model: 'no-such-model' },
      { call: c.call({ body: '{"model": ' }), key: 'main', model: pathModel },
    ];
  }

  it('answers a chat call with 200, non-empty text and usage that adds up', async () => {
    const { run, sim } = setup();
    const reply = await run(c.call());
    expect(reply.status).toBe(200);
    const a = READERS[c.dialect].answer(reply.body);
    expect(a.text.trim()).not.toBe('');
    expect(a.input).toBeGreaterThan(0);
    expect(a.output).toBe(a.text.trim().split(/\s+/).length);
    if (a.total !== undefined) expect(a.total).toBe(a.input + a.output);
    expect(sim.ledger.row(0)).toMatchObject({ tokensIn: a.input, tokensOut: a.output, end: 'complete' });
  });

  it("streams content and ends with the vendor's own terminator", async () => {
    const { run } = setup();
    const reply = await run(c.call({ stream: true }));
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toMatch(
      c.dialect === 'bedrock' ? /^application\/vnd\.amazon\.eventstream$/ : /event-stream/,
    );
    const s = READERS[c.dialect].stream(reply.body);
    expect(s.text.trim()).not.toBe('');
    expect(s.ended).toBe(true);
  });

  it(`refuses a missing key with ${c.missingKey.status} in the vendor's envelope`, async () => {
    expectEnvelope(await setup().run(missingKey()), c.missingKey);
  });

  it(`refuses a wrong key with ${c.wrongKey.status} in the vendor's envelope`, async () => {
    expectEnvelope(await setup().run(c.call({ key: 'sk-wrong' })), c.wrongKey);
  });

  it(`answers an unknown model with ${c.unknownModel.status} in the vendor's envelope`, async () => {
    expectEnvelope(await setup().run(c.call({ model: 'no-such-model' })), c.unknownModel);
  });

  it(`answers malformed JSON with ${c.badJson.status} in the vendor's envelope`, async () => {
    expectEnvelope(await setup().run(c.call({ body: '{"model": ' })), c.badJson);
  });

  it(`answers a spent quota with ${c.quota.status}, announcing the wait in the vendor's form (${c.quota.hintForm ?? 'none'})`, async () => {
    const { sim, clock } = setup();
    // Held open, the admitted requests also count against a concurrency limit.
    const replies = Array.from({ length: c.admitted + 1 }, () => sim.handle(c.call()));
    expect(replies.map((r) => r.status)).toEqual([...Array(c.admitted).fill(200), c.quota.status]);
    const reply = await collectReply(replies.at(-1)!, clock);
    expectEnvelope(reply, c.quota);
    const row = sim.ledger.row(c.admitted)!;
    expect(row.hintForm).toBe(c.quota.hintForm);
    if (c.quota.hintForm === null) {
      expect(row.hintMs).toBeNull();
      expect(c.quota.announced(reply)).toBeUndefined();
    } else {
      expect(row.hintMs).toBeGreaterThan(0);
      expect(c.quota.announced(reply)).toBe(row.hintMs);
    }
  });

  it(
    c.rateLimitHeaders.length > 0
      ? "sends the vendor's rate-limit headers on a success"
      : 'sends no rate-limit headers, as the vendor sends none',
    async () => {
      const reply = await setup().run(c.call());
      if (c.rateLimitHeaders.length === 0)
        expect(Object.keys(reply.headers).filter((h) => /rate-?limit|retry-after/i.test(h))).toEqual([]);
      for (const name of c.rateLimitHeaders) expect(reply.headers[name], name).toMatch(/\S/);
    },
  );

  it("carries the vendor's common headers and a fresh request id on every answer", async () => {
    const { run } = setup();
    const common = Object.keys(VENDORS[vendor].commonHeaders(encodeContext()));
    if (c.requestIdHeader !== null) expect(common).toContain(c.requestIdHeader);
    const ids = new Set<string>();
    const list = calls();
    for (const { call } of list) {
      const reply = await run(call);
      for (const name of [...common, 'date']) expect(reply.headers[name], `${name} on a ${reply.status}`).toBeDefined();
      if (c.requestIdHeader !== null) ids.add(reply.headers[c.requestIdHeader]!);
    }
    if (c.requestIdHeader !== null) expect(ids.size).toBe(list.length);
  });

  it('records every attempt in the ledger with its provider, key, model and status', async () => {
    const { run, sim } = setup();
    const list = calls();
    const statuses: number[] = [];
    for (const { call } of list) statuses.push((await run(call)).status!);
    expect(sim.ledger.size).toBe(list.length);
    list.forEach(({ key, model }, i) => {
      expect(sim.ledger.row(i), `attempt ${i}`).toMatchObject({
        provider: vendor,
        vendor,
        key,
        model,
        status: statuses[i],
        endpoint: 'chat',
      });
    });
  });
}
