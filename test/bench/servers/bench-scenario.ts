import { scenarioFrom } from '../../helpers/scenario.js';

/** The benchmark's provider: OpenAI profile, quotas that never bind, no latency, ledger on. */
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
`);

export const BENCH_REQUEST = {
  path: '/openai/v1/chat/completions',
  headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
  body: JSON.stringify({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'Write one sentence about rate limits.' }],
    max_tokens: 64,
  }),
};
