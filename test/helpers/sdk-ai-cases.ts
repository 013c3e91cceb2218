import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createAzure } from '@ai-sdk/azure';
import { createDeepSeek } from '@ai-sdk/deepseek';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createGroq } from '@ai-sdk/groq';
import { createMistral } from '@ai-sdk/mistral';
import { createOpenAI } from '@ai-sdk/openai';
import { APICallError, generateText, RetryError, streamText, type LanguageModel } from 'ai';
import { expect } from 'vitest';
import { providerLine, type CallOptions, type SdkCase, type SdkErrorView } from './sdk-matrix.js';

// A fetch that breaks the JSON body: the malformed-request cell, since the AI SDK validates its
// own arguments before anything is sent.
const breakingFetch: typeof fetch = (input, init) => globalThis.fetch(input, { ...init, body: '{"broken' });

/** The AI SDK's errors: APICallError (or the last one inside a RetryError). */
export function aiView(e: unknown): SdkErrorView {
  const err = RetryError.isInstance(e) ? e.lastError : e;
  if (!APICallError.isInstance(err))
    return { cls: (err as Error).constructor.name, status: undefined, header: () => undefined, message: String(err) };
  return {
    cls: 'APICallError',
    status: err.statusCode,
    header: (n) => err.responseHeaders?.[n],
    message: `${err.message} ${err.responseBody ?? ''}`,
  };
}

interface AiTarget {
  sdk: string;
  id: string;
  vendor: string;
  model: string;
  key: string;
  line?: string;
  make(origin: string, key: string, fetch?: typeof globalThis.fetch): (model: string) => LanguageModel;
  evidence: (e: SdkErrorView) => void;
  overload?: number;
  unknownModel?: { status: number; names?: boolean };
  badKey?: number;
  malformed?: number;
}

function aiCase(t: AiTarget): SdkCase {
  const model = (origin: string, o: Pick<CallOptions, 'key' | 'model' | 'malformed'>) =>
    t.make(origin, o.key ?? t.key, o.malformed ? breakingFetch : undefined)(o.model ?? t.model);
  return {
    sdk: t.sdk,
    id: t.id,
    provider: t.line ?? providerLine(t.id, t.vendor, t.model, t.key),
    async plain(s, o) {
      const r = await generateText({ model: model(s.origin, o), prompt: 'hello', maxRetries: o.maxRetries });
      return {
        text: r.text,
        inputTokens: r.usage.inputTokens ?? -1,
        outputTokens: r.usage.outputTokens ?? -1,
        finish: r.finishReason,
      };
    },
    async stream(s) {
      const r = streamText({ model: model(s.origin, {}), prompt: 'hello', maxRetries: 0, onError: () => {} });
      let text = '';
      for await (const d of r.textStream) text += d;
      const usage = await r.usage;
      return {
        text,
        inputTokens: usage.inputTokens ?? -1,
        outputTokens: usage.outputTokens ?? -1,
        finish: await r.finishReason,
      };
    },
    view: aiView,
    finish: 'stop',
    rateLimit: { cls: 'APICallError', evidence: t.evidence },
    // getRetryDelayInMs: retry-after-ms, then retry-after (seconds or date), used when under 60 s.
    retry: { kind: 'honours', hint: { form: 'ms', after: '300ms' }, waitMs: 300 },
    overload: { status: t.overload ?? 503, cls: 'APICallError' },
    unknownModel: { status: t.unknownModel?.status ?? 404, cls: 'APICallError', names: t.unknownModel?.names },
    badKey: { status: t.badKey ?? 401, cls: 'APICallError' },
    malformed: { status: t.malformed ?? 400, cls: 'APICallError' },
  };
}

const BEDROCK_MODEL = 'anthropic.claude-3-5-haiku-20241022-v1:0';

const TARGETS: AiTarget[] = [
  {
    sdk: 'ai + @ai-sdk/openai (default: Responses API)',
    id: 'openai',
    vendor: 'openai',
    model: 'gpt-4o-mini',
    key: 'sk-sim-openai',
    make: (o, key, fetch) => createOpenAI({ baseURL: `${o}/openai/v1`, apiKey: key, fetch }),
    evidence: (e) => expect(e.header('x-ratelimit-remaining-requests')).toBe('0'),
  },
  {
    sdk: 'ai + @ai-sdk/azure (default: Responses API)',
    id: 'azure-openai',
    vendor: 'azure-openai',
    model: 'gpt-4o-mini',
    key: 'sk-sim-azure',
    make: (o, key, fetch) => createAzure({ baseURL: `${o}/azure-openai/openai/v1`, apiKey: key, fetch }),
    evidence: (e) => expect(e.header('retry-after-ms')).toBe('2000'),
    unknownModel: { status: 404, names: false },
  },
  {
    sdk: 'ai + @ai-sdk/anthropic',
    id: 'anthropic',
    vendor: 'anthropic',
    model: 'claude-haiku-4-5',
    key: 'sk-ant-sim',
    line: `{ id: anthropic, vendor: anthropic, models: [claude-haiku-4-5], keys: [{ id: main, value: sk-ant-sim }], quotas: [{ metric: requests, limit: 1000, per: 1m }], latency: { completionTokens: 5 } }`,
    make: (o, key, fetch) => createAnthropic({ baseURL: `${o}/anthropic/v1`, apiKey: key, fetch }),
    evidence: (e) => expect(e.header('retry-after')).toBe('2'),
    overload: 529,
  },
  {
    sdk: 'ai + @ai-sdk/google',
    id: 'gemini',
    vendor: 'gemini',
    model: 'gemini-2.5-flash',
    key: 'sim-gemini',
    make: (o, key, fetch) => createGoogleGenerativeAI({ baseURL: `${o}/gemini/v1beta`, apiKey: key, fetch }),
    evidence: (e) => expect(e.message).toMatch(/"retryDelay": "2s"/),
    badKey: 400,
  },
  {
    sdk: 'ai + @ai-sdk/mistral',
    id: 'mistral',
    vendor: 'mistral',
    model: 'mistral-small-latest',
    key: 'sim-mistral',
    make: (o, key, fetch) => createMistral({ baseURL: `${o}/mistral/v1`, apiKey: key, fetch }),
    evidence: (e) => expect(e.message).toMatch(/"code":"1300"/),
    unknownModel: { status: 400 },
    // Validation failures, unreadable JSON included, are 422s (§6.2).
    malformed: 422,
  },
  {
    sdk: 'ai + @ai-sdk/groq',
    id: 'groq',
    vendor: 'groq',
    model: 'llama-3.1-8b-instant',
    key: 'gsk-sim',
    make: (o, key, fetch) => createGroq({ baseURL: `${o}/groq/openai/v1`, apiKey: key, fetch }),
    evidence: (e) => expect(e.header('retry-after')).toBe('2'),
  },
  {
    sdk: 'ai + @ai-sdk/deepseek',
    id: 'deepseek',
    vendor: 'deepseek',
    model: 'deepseek-chat',
    key: 'sk-sim-deepseek',
    make: (o, key, fetch) => createDeepSeek({ baseURL: `${o}/deepseek`, apiKey: key, fetch }),
    evidence: (e) => expect(e.message).toMatch(/Rate Limit Reached/),
    unknownModel: { status: 400, names: false },
  },
  {
    sdk: 'ai + @ai-sdk/amazon-bedrock',
    id: 'bedrock',
    vendor: 'bedrock',
    model: BEDROCK_MODEL,
    key: 'AKIASIMBEDROCK0001:sim-secret',
    make: (o, key, fetch) =>
      createAmazonBedrock({
        baseURL: `${o}/bedrock`,
        region: 'us-east-1',
        accessKeyId: key.split(':')[0]!,
        secretAccessKey: key.split(':')[1] ?? 'x',
        fetch,
      }),
    evidence: (e) => expect(e.header('x-amzn-errortype')).toMatch(/^ThrottlingException:/),
    unknownModel: { status: 400, names: false },
    badKey: 403,
  },
];

/** The Vercel AI SDK with each vendor provider, default models unchanged. */
export const AI_SDK_CASES: SdkCase[] = TARGETS.map(aiCase);
