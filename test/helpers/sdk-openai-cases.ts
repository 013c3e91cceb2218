import OpenAI, { AzureOpenAI } from 'openai';
import { expect } from 'vitest';
import type { Served } from './serve.js';
import { providerLine, type CallOptions, type SdkAnswer, type SdkCase, type SdkErrorView } from './sdk-matrix.js';

/** The openai SDK's errors: Stainless classes with status, headers and message. */
export function openAIView(e: unknown): SdkErrorView {
  const err = e as InstanceType<typeof OpenAI.APIError>;
  return {
    cls: err.constructor.name,
    status: err.status,
    header: (n) => err.headers?.get(n),
    message: err.message,
  };
}

const MS_HINT = { kind: 'honours', hint: { form: 'ms', after: '300ms' }, waitMs: 300 } as const;

interface Target {
  id: string;
  vendor: string;
  model: string;
  key: string;
  base: (origin: string) => string;
  evidence: (e: SdkErrorView) => void;
  unknownModel?: { status: number; cls: string; names?: boolean };
  badKey?: { status: number; cls: string };
  malformed?: { status: number; cls: string };
  extra?: string;
}

function chatClient(t: Target, s: Served, o: Pick<CallOptions, 'maxRetries' | 'key'>): OpenAI {
  if (t.vendor === 'azure-openai')
    return new AzureOpenAI({
      endpoint: t.base(s.origin),
      apiKey: o.key ?? t.key,
      apiVersion: '2024-10-21',
      maxRetries: o.maxRetries,
    });
  return new OpenAI({ baseURL: t.base(s.origin), apiKey: o.key ?? t.key, maxRetries: o.maxRetries });
}

function chatCase(t: Target): SdkCase {
  return {
    sdk: 'openai',
    id: t.id,
    provider: providerLine(t.id, t.vendor, t.model, t.key, t.extra),
    async plain(s, o): Promise<SdkAnswer> {
      const client = chatClient(t, s, o);
      const r = await client.chat.completions.create({
        model: o.model ?? t.model,
        messages: o.malformed ? [] : [{ role: 'user', content: 'hello' }],
      });
      return {
        text: r.choices[0]!.message.content ?? '',
        inputTokens: r.usage!.prompt_tokens,
        outputTokens: r.usage!.completion_tokens,
        finish: r.choices[0]!.finish_reason,
      };
    },
    async stream(s): Promise<SdkAnswer> {
      const client = chatClient(t, s, { maxRetries: 0 });
      const stream = await client.chat.completions.create({
        model: t.model,
        messages: [{ role: 'user', content: 'hello' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      const a: SdkAnswer = { text: '', inputTokens: -1, outputTokens: -1, finish: '' };
      for await (const chunk of stream) {
        a.text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.choices[0]?.finish_reason) a.finish = chunk.choices[0].finish_reason;
        if (chunk.usage) [a.inputTokens, a.outputTokens] = [chunk.usage.prompt_tokens, chunk.usage.completion_tokens];
      }
      return a;
    },
    view: openAIView,
    finish: 'stop',
    rateLimit: { cls: 'RateLimitError', evidence: t.evidence },
    retry: MS_HINT,
    overload: { status: 503, cls: 'InternalServerError' },
    unknownModel: t.unknownModel ?? { status: 404, cls: 'NotFoundError' },
    badKey: t.badKey ?? { status: 401, cls: 'AuthenticationError' },
    malformed: t.malformed ?? { status: 400, cls: 'BadRequestError' },
  };
}

function responsesCase(t: Target): SdkCase {
  const base = chatCase(t);
  return {
    ...base,
    sdk: 'openai (Responses API)',
    async plain(s, o): Promise<SdkAnswer> {
      const r = await chatClient(t, s, o).responses.create({
        model: o.model ?? t.model,
        input: o.malformed ? [] : 'hello',
      });
      return {
        text: r.output_text,
        inputTokens: r.usage!.input_tokens,
        outputTokens: r.usage!.output_tokens,
        finish: r.status ?? '',
      };
    },
    async stream(s): Promise<SdkAnswer> {
      const stream = await chatClient(t, s, { maxRetries: 0 }).responses.create({
        model: t.model,
        input: 'hello',
        stream: true,
      });
      const a: SdkAnswer = { text: '', inputTokens: -1, outputTokens: -1, finish: '' };
      for await (const ev of stream) {
        if (ev.type === 'response.output_text.delta') a.text += ev.delta;
        if (ev.type === 'response.completed') {
          a.finish = ev.response.status ?? '';
          [a.inputTokens, a.outputTokens] = [ev.response.usage!.input_tokens, ev.response.usage!.output_tokens];
        }
      }
      return a;
    },
    finish: 'completed',
  };
}

const header = (name: string, value: string | RegExp) => (e: SdkErrorView) =>
  typeof value === 'string' ? expect(e.header(name)).toBe(value) : expect(e.header(name)).toMatch(value);

const TARGETS: Target[] = [
  {
    id: 'openai',
    vendor: 'openai',
    model: 'gpt-4o-mini',
    key: 'sk-sim-openai',
    base: (o) => `${o}/openai/v1`,
    evidence: (e) => {
      expect(e.header('x-ratelimit-remaining-requests')).toBe('0');
      expect(e.message).toMatch(/Please try again in 2s/);
    },
  },
  {
    id: 'azure-openai',
    vendor: 'azure-openai',
    model: 'gpt-4o-mini',
    key: 'sk-sim-azure',
    base: (o) => `${o}/azure-openai`,
    evidence: (e) => {
      expect(e.header('retry-after-ms')).toBe('2000');
      expect(e.header('retry-after')).toBe('2');
      expect(e.message).toMatch(/Please retry after 2 seconds/);
    },
    // DeploymentNotFound does not name the deployment.
    unknownModel: { status: 404, cls: 'NotFoundError', names: false },
  },
  {
    id: 'groq',
    vendor: 'groq',
    model: 'llama-3.1-8b-instant',
    key: 'gsk-sim-groq',
    base: (o) => `${o}/groq/openai/v1`,
    evidence: (e) => {
      header('retry-after', '2')(e);
      expect(e.header('x-ratelimit-remaining-requests')).toBeNull();
    },
  },
  {
    id: 'deepseek',
    vendor: 'deepseek',
    model: 'deepseek-chat',
    key: 'sk-sim-deepseek',
    base: (o) => `${o}/deepseek`,
    evidence: (e) => expect(e.message).toMatch(/Rate Limit Reached/),
    unknownModel: { status: 400, cls: 'BadRequestError', names: false },
    malformed: { status: 422, cls: 'UnprocessableEntityError' },
  },
  {
    id: 'ratelimit-draft',
    vendor: 'ratelimit-draft',
    model: 'generic-1',
    key: 'sk-sim-draft',
    base: (o) => `${o}/ratelimit-draft/v1`,
    evidence: (e) => {
      expect(e.header('ratelimit')).toMatch(/r=0;t=\d+/);
      header('retry-after', '2')(e);
    },
  },
  {
    id: 'openrouter',
    vendor: 'openrouter',
    model: 'openai/gpt-4o-mini',
    key: 'sk-or-sim',
    base: (o) => `${o}/openrouter/api/v1`,
    evidence: (e) => {
      expect(e.header('x-ratelimit-remaining')).toBe('0');
      expect(Number(e.header('x-ratelimit-reset'))).toBeGreaterThan(1e12);
      header('retry-after', '2')(e);
    },
    unknownModel: { status: 400, cls: 'BadRequestError' },
  },
  {
    id: 'cerebras',
    vendor: 'cerebras',
    model: 'llama3.1-8b',
    key: 'csk-sim',
    base: (o) => `${o}/cerebras/v1`,
    evidence: (e) => {
      expect(e.header('x-ratelimit-remaining-tokens-minute')).not.toBeNull();
      expect(e.header('x-ratelimit-remaining-requests-day')).not.toBeNull();
    },
    extra: ', options: { requestsMinuteHeaders: true }',
    // The body is flat (no `error` key): the openai SDK reads no message from it.
    unknownModel: { status: 404, cls: 'NotFoundError', names: false },
  },
  {
    id: 'together',
    vendor: 'together',
    model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
    key: 'tg-sim',
    base: (o) => `${o}/together/v1`,
    evidence: (e) => expect(e.header('x-ratelimit-remaining')).toBe('0'),
  },
  {
    id: 'xai',
    vendor: 'xai',
    model: 'grok-4',
    key: 'xai-sim',
    base: (o) => `${o}/xai/v1`,
    evidence: (e) => expect(e.message).toMatch(/Too many requests for team/),
    badKey: { status: 400, cls: 'BadRequestError' },
  },
];

/**
 * The openai SDK against every profile it serves: chat completions, and the Responses API on OpenAI,
 * Azure and xAI (`@ai-sdk/xai`'s `responses()` posts the same body to `/v1/responses`; that package
 * is not a dependency, so the openai SDK stands in for it).
 */
export const OPENAI_SDK_CASES: SdkCase[] = [
  ...TARGETS.map(chatCase),
  ...TARGETS.filter((t) => ['openai', 'azure-openai', 'xai'].includes(t.id)).map(responsesCase),
];
