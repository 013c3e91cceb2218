import { scenarioFrom } from '../../helpers/scenario.js';

/** The benchmark's providers: quotas that never bind, no latency, ledger on. */
export const BENCH_SCENARIO = scenarioFrom(`
version: 1
name: bench
providers:
  - id: openai
    vendor: openai
    models: [gpt-4o-mini]
    keys: [{ id: main, value: sk-bench }]
    quotas:
      - { metric: requests, limit: 1000000000, per: 1m }
      - { metric: tokens, limit: 1000000000000, per: 1m }
    latency: { completionTokens: 16 }
  - id: cerebras
    vendor: cerebras
    models: [llama3.1-8b]
    keys: [{ id: main, value: csk-bench }]
    quotas:
      - { metric: requests, limit: 1000000000, per: 1d }
      - { metric: tokens, limit: 1000000000000, per: 1m }
    latency: { completionTokens: 16 }
`);

const ASK = 'Write one sentence about rate limits.';

/** The request each benchmark target sends: OpenAI chat (the default), the Responses API, Cerebras chat. */
export const BENCH_REQUESTS = {
  chat: {
    path: '/openai/v1/chat/completions',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: ASK }], max_tokens: 64 }),
  },
  responses: {
    path: '/openai/v1/responses',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
    body: JSON.stringify({ model: 'gpt-4o-mini', input: ASK, max_output_tokens: 64 }),
  },
  cerebras: {
    path: '/cerebras/v1/chat/completions',
    headers: { 'content-type': 'application/json', authorization: 'Bearer csk-bench' },
    body: JSON.stringify({ model: 'llama3.1-8b', messages: [{ role: 'user', content: ASK }], max_tokens: 64 }),
  },
};

/** The target named by `--target` (default `chat`). */
export function benchRequest(argv: readonly string[]): (typeof BENCH_REQUESTS)['chat'] {
  const i = argv.indexOf('--target');
  const name = (i >= 0 ? argv[i + 1] : 'chat') as keyof typeof BENCH_REQUESTS;
  const req = BENCH_REQUESTS[name];
  if (!req) throw new Error(`unknown --target ${name}; use ${Object.keys(BENCH_REQUESTS).join(', ')}`);
  return req;
}

/** The default target, kept for scripts that take none. */
export const BENCH_REQUEST = BENCH_REQUESTS.chat;
