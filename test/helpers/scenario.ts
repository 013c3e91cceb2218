import { formatIssues } from '../../simulator/scenario/issue.js';
import { parseRunScenario as parseScenario } from '../../harness/scenario/parse-run-scenario.js';
import type { RunScenario as Scenario } from '../../harness/scenario/schema.js';

/** Parses scenario YAML written inside a test, failing loudly with located issues. */
export function scenarioFrom(yaml: string, env: Record<string, string> = {}): Scenario {
  const result = parseScenario(yaml, { env });
  if (!result.ok) throw new Error(`test scenario is invalid:\n${formatIssues('inline.yaml', result.issues)}`);
  return result.scenario;
}

/** One provider per vendor, provider id = vendor id, keys `sk-<vendor>`, no latency. */
export const ALL_VENDORS_YAML = `
version: 1
name: all-vendors
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-openai }], quotas: [{ metric: requests, limit: 3, per: 1m }, { metric: tokens, limit: 100000, per: 1m }] }
  - { id: azure-openai, vendor: azure-openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-azure-openai }], quotas: [{ metric: requests, limit: 3, per: 10s }, { metric: tokens, limit: 100000, per: 1m }] }
  - { id: anthropic, vendor: anthropic, models: [claude-haiku-4-5], keys: [{ id: main, value: sk-anthropic }], quotas: [{ metric: requests, limit: 3, per: 1m }, { metric: input-tokens, limit: 100000, per: 1m }, { metric: output-tokens, limit: 100000, per: 1m }] }
  - { id: gemini, vendor: gemini, models: [gemini-2.5-flash], keys: [{ id: main, value: sk-gemini }], quotas: [{ metric: requests, limit: 3, per: 1m }] }
  - { id: groq, vendor: groq, models: [llama-3.1-8b-instant], keys: [{ id: main, value: sk-groq }], quotas: [{ metric: requests, limit: 3, per: 1m }, { metric: tokens, limit: 100000, per: 1m }] }
  - { id: mistral, vendor: mistral, models: [mistral-small-latest], keys: [{ id: main, value: sk-mistral }], quotas: [{ metric: requests, limit: 3, per: 1m }, { metric: tokens, limit: 100000, per: 1m }] }
  - { id: deepseek, vendor: deepseek, models: [deepseek-chat], keys: [{ id: main, value: sk-deepseek }], quotas: [{ metric: concurrency, limit: 3 }] }
  - { id: ratelimit-draft, vendor: ratelimit-draft, models: [generic-1], keys: [{ id: main, value: sk-ratelimit-draft }], quotas: [{ metric: requests, limit: 3, per: 1m }] }
  - { id: bedrock, vendor: bedrock, models: ["anthropic.claude-3-5-haiku-20241022-v1:0"], keys: [{ id: main, value: sk-bedrock }], quotas: [{ metric: requests, limit: 3, per: 1m }] }
  - { id: vertex-ai, vendor: vertex-ai, models: [gemini-2.5-flash], keys: [{ id: main, value: sk-vertex-ai }], quotas: [{ metric: requests, limit: 3, per: 1m }] }
  - { id: openrouter, vendor: openrouter, models: [openai/gpt-4o-mini], keys: [{ id: main, value: sk-openrouter }], quotas: [{ metric: requests, limit: 3, per: 1m }] }
  - { id: cerebras, vendor: cerebras, models: [llama3.1-8b], keys: [{ id: main, value: sk-cerebras }], quotas: [{ metric: requests, limit: 3, per: 1m }, { metric: tokens, limit: 100000, per: 1m }] }
  - { id: together, vendor: together, models: [meta-llama/Llama-3.3-70B-Instruct-Turbo], keys: [{ id: main, value: sk-together }], quotas: [{ metric: requests, limit: 3, per: 1m }, { metric: tokens, limit: 100000, per: 1m }] }
  - { id: xai, vendor: xai, models: [grok-4], keys: [{ id: main, value: sk-xai }], quotas: [{ metric: requests, limit: 3, per: 1m }] }
`;

/** How to call each vendor's chat endpoint, for tests that go through every profile. */
export interface ChatCall {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The prompt `chatCall` sends unless told otherwise. */
export const CHAT_PROMPT = 'Say hello.';

/** Builds a vendor-native chat request for provider `vendor` (provider id = vendor id). */
export function chatCall(
  vendor: string,
  opts: { stream?: boolean; key?: string; model?: string; maxTokens?: number; prompt?: string; body?: string } = {},
): ChatCall {
  const key = opts.key ?? `sk-${vendor}`;
  const prompt = opts.prompt ?? CHAT_PROMPT;
  const stream = opts.stream ?? false;
  const json = { 'content-type': 'application/json' };
  switch (vendor) {
    case 'anthropic':
      return {
        method: 'POST',
        url: '/anthropic/v1/messages',
        headers: { ...json, 'x-api-key': key, 'anthropic-version': '2023-06-01' },
        body:
          opts.body ??
          JSON.stringify({
            model: opts.model ?? 'claude-haiku-4-5',
            max_tokens: opts.maxTokens ?? 64,
            stream,
            messages: [{ role: 'user', content: prompt }],
          }),
      };
    case 'gemini': {
      const model = opts.model ?? 'gemini-2.5-flash';
      return {
        method: 'POST',
        url: `/gemini/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
        headers: { ...json, 'x-goog-api-key': key },
        body:
          opts.body ??
          JSON.stringify({
            contents: [{ role: 'user', parts: [{ text: prompt }] }],
            generationConfig: opts.maxTokens ? { maxOutputTokens: opts.maxTokens } : undefined,
          }),
      };
    }
    case 'bedrock': {
      const model = opts.model ?? 'anthropic.claude-3-5-haiku-20241022-v1:0';
      return {
        method: 'POST',
        url: `/bedrock/model/${encodeURIComponent(model)}/${stream ? 'converse-stream' : 'converse'}`,
        headers: { ...json, authorization: `Bearer ${key}` },
        body:
          opts.body ??
          JSON.stringify({
            messages: [{ role: 'user', content: [{ text: prompt }] }],
            inferenceConfig: opts.maxTokens ? { maxTokens: opts.maxTokens } : undefined,
          }),
      };
    }
    case 'vertex-ai': {
      const model = opts.model ?? 'gemini-2.5-flash';
      return {
        method: 'POST',
        url: `/vertex-ai/v1/projects/p/locations/us-central1/publishers/google/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
        headers: { ...json, authorization: `Bearer ${key}` },
        body:
          opts.body ??
          JSON.stringify({
            contents: [{ role: 'user', parts: [{ text: prompt }] }],
            generationConfig: opts.maxTokens ? { maxOutputTokens: opts.maxTokens } : undefined,
          }),
      };
    }
    case 'azure-openai':
      return {
        method: 'POST',
        url: `/azure-openai/openai/deployments/${opts.model ?? 'gpt-4o-mini'}/chat/completions?api-version=2024-10-21`,
        headers: { ...json, 'api-key': key },
        body:
          opts.body ??
          JSON.stringify({
            messages: [{ role: 'user', content: prompt }],
            stream,
            stream_options: stream ? { include_usage: true } : undefined,
            max_tokens: opts.maxTokens,
          }),
      };
    default: {
      const path =
        vendor === 'groq'
          ? '/groq/openai/v1/chat/completions'
          : vendor === 'deepseek'
            ? '/deepseek/chat/completions'
            : vendor === 'openrouter'
              ? '/openrouter/api/v1/chat/completions'
              : `/${vendor}/v1/chat/completions`;
      const model =
        opts.model ??
        {
          openai: 'gpt-4o-mini',
          groq: 'llama-3.1-8b-instant',
          mistral: 'mistral-small-latest',
          deepseek: 'deepseek-chat',
          'ratelimit-draft': 'generic-1',
          openrouter: 'openai/gpt-4o-mini',
          cerebras: 'llama3.1-8b',
          together: 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
          xai: 'grok-4',
        }[vendor];
      return {
        method: 'POST',
        url: path,
        headers: { ...json, authorization: `Bearer ${key}` },
        body:
          opts.body ??
          JSON.stringify({
            model,
            messages: [{ role: 'user', content: prompt }],
            stream,
            stream_options: stream ? { include_usage: true } : undefined,
            max_tokens: opts.maxTokens,
          }),
      };
    }
  }
}
