import { describe, expect, it } from 'vitest';
import type { Router } from '../../router/router.js';
import { routerFor } from '../helpers/router-fixture.js';
import { serve, type Served } from '../helpers/serve.js';
import { closeAfterEach } from '../helpers/close-after-each.js';

const SIM = `
version: 1
name: router-sim
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-sim-openai }], quotas: [{ metric: requests, limit: 1000, per: 1m }, { metric: tokens, limit: 1000000, per: 1m }], latency: { completionTokens: 5 } }
  - { id: anthropic, vendor: anthropic, models: [claude-haiku-4-5], keys: [{ id: main, value: sk-ant-sim }], quotas: [{ metric: requests, limit: 1000, per: 1m }], latency: { completionTokens: 5 } }
  - { id: gemini, vendor: gemini, models: [gemini-2.5-flash], keys: [{ id: main, value: sim-gemini }], quotas: [{ metric: requests, limit: 1000, per: 1m }], latency: { completionTokens: 5 } }
`;

let served: Served | undefined;
let router: Router | undefined;
closeAfterEach(() => [router, served]);

const ask = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: 'user', content: 'hello [tl:c1]' }],
  ...extra,
});

describe('router against the simulator', () => {
  it.each(['openai/gpt-4o-mini', 'anthropic/claude-haiku-4-5', 'gemini/gemini-2.5-flash'])(
    'answers through %s in OpenAI shape',
    async (model) => {
      served = await serve(SIM);
      router = routerFor(served);
      const r = await router.route(ask(model));
      expect(r.kind).toBe('response');
      if (r.kind !== 'response') return;
      expect(r.status).toBe(200);
      const body = JSON.parse(r.body);
      expect(body.object).toBe('chat.completion');
      expect(body.usage.completion_tokens).toBe(5);
      expect(body.choices[0].message.content.split(' ')).toHaveLength(5);
    },
  );

  it.each(['openai/gpt-4o-mini', 'anthropic/claude-haiku-4-5', 'gemini/gemini-2.5-flash'])(
    'streams through %s as OpenAI chunks ending in [DONE]',
    async (model) => {
      served = await serve(SIM);
      router = routerFor(served);
      const r = await router.route(ask(model, { stream: true, stream_options: { include_usage: true } }));
      expect(r.kind).toBe('stream');
      if (r.kind !== 'stream') return;
      let text = r.first.join('');
      for await (const f of r.rest) text += f;
      const datas = text
        .split('\n\n')
        .filter(Boolean)
        .map((l) => l.replace(/^data: /, ''));
      expect(datas.at(-1)).toBe('[DONE]');
      const chunks = datas.slice(0, -1).map((d) => JSON.parse(d));
      const content = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
      expect(content.split(' ')).toHaveLength(5);
      expect(chunks.find((c) => c.usage)?.usage.completion_tokens).toBe(5);
    },
  );
});
