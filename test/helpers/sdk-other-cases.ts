import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { Mistral } from '@mistralai/mistralai';
import Groq from 'groq-sdk';
import { expect } from 'vitest';
import { providerLine, type SdkAnswer, type SdkCase, type SdkErrorView } from './sdk-matrix.js';

/** Stainless SDKs (Anthropic, Groq): class, status, headers, message. */
function stainlessView(e: unknown): SdkErrorView {
  const err = e as { constructor: { name: string }; status?: number; headers?: Headers; message: string };
  return { cls: err.constructor.name, status: err.status, header: (n) => err.headers?.get(n), message: err.message };
}

const ANTHROPIC_MODEL = 'claude-haiku-4-5';

export const ANTHROPIC_CASE: SdkCase = {
  sdk: '@anthropic-ai/sdk',
  id: 'anthropic',
  provider: `{ id: anthropic, vendor: anthropic, models: [${ANTHROPIC_MODEL}], keys: [{ id: main, value: sk-ant-sim }], quotas: [{ metric: requests, limit: 1000, per: 1m }, { metric: input-tokens, limit: 1000000, per: 1m }, { metric: output-tokens, limit: 1000000, per: 1m }], latency: { completionTokens: 5 } }`,
  async plain(s, o) {
    const client = new Anthropic({
      baseURL: `${s.origin}/anthropic`,
      apiKey: o.key ?? 'sk-ant-sim',
      maxRetries: o.maxRetries,
    });
    const body = {
      model: o.model ?? ANTHROPIC_MODEL,
      max_tokens: 64,
      messages: [{ role: 'user' as const, content: 'hello' }],
    };
    const m = await client.messages.create(o.malformed ? ({ ...body, max_tokens: undefined } as never) : body);
    const text = m.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    return {
      text,
      inputTokens: m.usage.input_tokens,
      outputTokens: m.usage.output_tokens,
      finish: m.stop_reason ?? '',
    };
  },
  async stream(s) {
    const client = new Anthropic({ baseURL: `${s.origin}/anthropic`, apiKey: 'sk-ant-sim' });
    const stream = client.messages.stream({
      model: ANTHROPIC_MODEL,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hello' }],
    });
    let text = '';
    stream.on('text', (t) => (text += t));
    const m = await stream.finalMessage();
    return {
      text,
      inputTokens: m.usage.input_tokens,
      outputTokens: m.usage.output_tokens,
      finish: m.stop_reason ?? '',
    };
  },
  view: stainlessView,
  finish: 'end_turn',
  rateLimit: {
    cls: 'RateLimitError',
    evidence: (e) => {
      expect(e.header('retry-after')).toBe('2');
      expect(e.header('anthropic-ratelimit-requests-remaining')).toBe('0');
      expect(e.header('x-should-retry')).toBe('true');
    },
  },
  retry: { kind: 'honours', hint: { form: 'ms', after: '300ms' }, waitMs: 300 },
  overload: { status: 529, cls: 'OverloadedError' },
  unknownModel: { status: 404, cls: 'NotFoundError' },
  badKey: { status: 401, cls: 'AuthenticationError' },
  malformed: { status: 400, cls: 'BadRequestError' },
};

const GROQ_MODEL = 'llama-3.1-8b-instant';

export const GROQ_CASE: SdkCase = {
  sdk: 'groq-sdk',
  id: 'groq',
  provider: providerLine('groq', 'groq', GROQ_MODEL, 'gsk-sim'),
  async plain(s, o) {
    const client = new Groq({ baseURL: `${s.origin}/groq`, apiKey: o.key ?? 'gsk-sim', maxRetries: o.maxRetries });
    const r = await client.chat.completions.create({
      model: o.model ?? GROQ_MODEL,
      messages: o.malformed ? [] : [{ role: 'user', content: 'hello' }],
    });
    return {
      text: r.choices[0]!.message.content ?? '',
      inputTokens: r.usage!.prompt_tokens!,
      outputTokens: r.usage!.completion_tokens!,
      finish: r.choices[0]!.finish_reason,
    };
  },
  async stream(s) {
    const client = new Groq({ baseURL: `${s.origin}/groq`, apiKey: 'gsk-sim' });
    const stream = await client.chat.completions.create({
      model: GROQ_MODEL,
      messages: [{ role: 'user', content: 'hello' }],
      stream: true,
    });
    const a: SdkAnswer = { text: '', inputTokens: -1, outputTokens: -1, finish: '' };
    for await (const chunk of stream) {
      a.text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.choices[0]?.finish_reason) a.finish = chunk.choices[0].finish_reason;
      const u = chunk.x_groq?.usage;
      if (u) [a.inputTokens, a.outputTokens] = [u.prompt_tokens!, u.completion_tokens!];
    }
    return a;
  },
  view: stainlessView,
  finish: 'stop',
  rateLimit: {
    cls: 'RateLimitError',
    evidence: (e) => {
      expect(e.header('retry-after')).toBe('2');
      expect(e.message).toMatch(/Please try again in 2s/);
    },
  },
  retry: { kind: 'honours', hint: { form: 'ms', after: '300ms' }, waitMs: 300 },
  overload: { status: 503, cls: 'InternalServerError' },
  unknownModel: { status: 404, cls: 'NotFoundError' },
  badKey: { status: 401, cls: 'AuthenticationError' },
  malformed: { status: 400, cls: 'BadRequestError' },
};

const MISTRAL_MODEL = 'mistral-small-latest';

function mistralView(e: unknown): SdkErrorView {
  const err = e as {
    constructor: { name: string };
    statusCode?: number;
    headers?: Headers;
    message: string;
    body?: string;
  };
  return {
    cls: err.constructor.name,
    status: err.statusCode,
    header: (n) => err.headers?.get(n),
    message: `${err.message} ${err.body ?? ''}`,
  };
}

export const MISTRAL_CASE: SdkCase = {
  sdk: '@mistralai/mistralai',
  id: 'mistral',
  provider: providerLine('mistral', 'mistral', MISTRAL_MODEL, 'sim-mistral'),
  async plain(s, o) {
    const client = new Mistral({
      serverURL: `${s.origin}/mistral`,
      apiKey: o.key ?? 'sim-mistral',
      // No retries unless configured (the SDK's default); configured, it honours Retry-After.
      ...(o.maxRetries > 0
        ? {
            retryConfig: {
              strategy: 'backoff' as const,
              // Retry-After is honoured up to maxInterval (lib/retries.js: min(retryAfter, maxInterval)).
              backoff: { initialInterval: 50, maxInterval: 5000, exponent: 1.5, maxElapsedTime: 10_000 },
              retryConnectionErrors: false,
            },
          }
        : {}),
    });
    const r = await client.chat.complete({
      model: o.model ?? MISTRAL_MODEL,
      messages: o.malformed ? [] : [{ role: 'user', content: 'hello' }],
    });
    const content = r.choices[0]!.message?.content;
    return {
      text: typeof content === 'string' ? content : '',
      inputTokens: r.usage.promptTokens ?? -1,
      outputTokens: r.usage.completionTokens ?? -1,
      finish: r.choices[0]!.finishReason,
    };
  },
  async stream(s) {
    const client = new Mistral({ serverURL: `${s.origin}/mistral`, apiKey: 'sim-mistral' });
    const stream = await client.chat.stream({ model: MISTRAL_MODEL, messages: [{ role: 'user', content: 'hello' }] });
    const a: SdkAnswer = { text: '', inputTokens: -1, outputTokens: -1, finish: '' };
    for await (const ev of stream) {
      const d = ev.data.choices[0];
      if (typeof d?.delta.content === 'string') a.text += d.delta.content;
      if (d?.finishReason) a.finish = d.finishReason;
      if (ev.data.usage)
        [a.inputTokens, a.outputTokens] = [ev.data.usage.promptTokens ?? -1, ev.data.usage.completionTokens ?? -1];
    }
    return a;
  },
  view: mistralView,
  finish: 'stop',
  rateLimit: { cls: /Error$/, evidence: (e) => expect(e.message).toMatch(/"code":"1300"/) },
  retry: { kind: 'honours', hint: { form: 'seconds', after: '1s' }, waitMs: 1000 },
  overload: { status: 503, cls: /Error$/ },
  unknownModel: { status: 400, cls: /Error$/ },
  badKey: { status: 401, cls: /Error$/ },
  malformed: { status: 422, cls: /Error$/ },
};

function genaiView(e: unknown): SdkErrorView {
  const err = e as { constructor: { name: string }; status?: number; message: string };
  return { cls: err.constructor.name, status: err.status, header: () => undefined, message: err.message };
}

function genaiCase(id: 'gemini' | 'vertex-ai'): SdkCase {
  const vertex = id === 'vertex-ai';
  const key = vertex ? 'ya29.sim-vertex' : 'sim-gemini';
  const client = (origin: string, k: string, attempts: number) =>
    new GoogleGenAI({
      ...(vertex ? { vertexai: true } : {}),
      apiKey: k,
      httpOptions: {
        baseUrl: `${origin}/${id}`,
        ...(attempts > 1 ? { retryOptions: { attempts, initialDelay: 0.05, maxDelay: 0.1, jitter: 0 } } : {}),
      },
    });
  return {
    sdk: '@google/genai',
    id,
    provider: `{ id: ${id}, vendor: ${id}, models: [gemini-2.5-flash], keys: [{ id: main, value: ${key} }], quotas: [{ metric: requests, limit: 1000, per: 1m }], latency: { completionTokens: 5 } }`,
    async plain(s, o) {
      const r = await client(s.origin, o.key ?? key, o.maxRetries + 1).models.generateContent({
        model: o.model ?? 'gemini-2.5-flash',
        contents: 'hello',
        ...(o.malformed ? { config: { maxOutputTokens: -5 } } : {}),
      });
      return {
        text: r.text ?? '',
        inputTokens: r.usageMetadata?.promptTokenCount ?? -1,
        outputTokens: r.usageMetadata?.candidatesTokenCount ?? -1,
        finish: r.candidates?.[0]?.finishReason ?? '',
      };
    },
    async stream(s) {
      const stream = await client(s.origin, key, 1).models.generateContentStream({
        model: 'gemini-2.5-flash',
        contents: 'hello',
      });
      const a: SdkAnswer = { text: '', inputTokens: -1, outputTokens: -1, finish: '' };
      for await (const chunk of stream) {
        a.text += chunk.text ?? '';
        if (chunk.candidates?.[0]?.finishReason) a.finish = chunk.candidates[0].finishReason;
        if (chunk.usageMetadata?.candidatesTokenCount !== undefined)
          [a.inputTokens, a.outputTokens] = [
            chunk.usageMetadata.promptTokenCount ?? -1,
            chunk.usageMetadata.candidatesTokenCount,
          ];
      }
      return a;
    },
    view: genaiView,
    finish: 'STOP',
    rateLimit: {
      cls: 'ApiError',
      evidence: vertex
        ? (e) => expect(e.message).not.toMatch(/RetryInfo/)
        : (e) => expect(e.message).toMatch(/google\.rpc\.RetryInfo.*"retryDelay":"2s"/s),
    },
    // retryOptions retries on the SDK's own exponential schedule: RetryInfo is not read (python-genai#1875).
    retry: {
      kind: 'ignores',
      hint: { form: 'body', after: '20s' },
      announcedMs: 20_000,
      retries: { maxRetries: 1 },
    },
    overload: { status: 503, cls: 'ApiError' },
    unknownModel: { status: 404, cls: 'ApiError' },
    badKey: vertex ? { status: 401, cls: 'ApiError' } : { status: 400, cls: 'ApiError' },
    malformed: { status: 400, cls: 'ApiError' },
  };
}

export const GENAI_CASES: SdkCase[] = [genaiCase('gemini'), genaiCase('vertex-ai')];
