import type { Router } from '../../router/router.js';
import { startRouterServer, type RouterServer } from '../../router/server/http-server.js';
import type { LedgerRow } from '../../simulator/ledger/ledger-row.js';
import { routerConfigFor } from './router-fixture.js';
import { serve, type Served } from './serve.js';
import { Router as RouterClass } from '../../router/router.js';

/**
 * Two chat vendors and two embedding vendors behind one simulator; `smart` stands for both chat
 * models, `embed` for both embedding models.
 */
export const API_PROVIDERS = `
version: 1
name: inbound-apis
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini, text-embedding-3-small], keys: [{ id: main, value: sk-sim-openai }], quotas: [{ metric: requests, limit: 10000, per: 1m }, { metric: tokens, limit: 10000000, per: 1m }], latency: { completionTokens: 5 } }
  - { id: anthropic, vendor: anthropic, models: [claude-haiku-4-5], keys: [{ id: main, value: sk-ant-sim }], quotas: [{ metric: requests, limit: 10000, per: 1m }], latency: { completionTokens: 5 } }
  - { id: mistral, vendor: mistral, models: [mistral-embed], keys: [{ id: main, value: sk-sim-mistral }], quotas: [{ metric: requests, limit: 10000, per: 1m }] }
`;

/** A simulator and a served router over it, `prefer` tried first while healthy. */
export interface ApiRig {
  served: Served;
  router: Router;
  server: RouterServer;
  rows(cid?: string): LedgerRow[];
  close(): Promise<void>;
}

/** Starts the rig: `faults` appended to the scenario, `prefer` the provider ranked first. */
export async function startApiRig(faults = '', prefer?: string, extra = ''): Promise<ApiRig> {
  const served = await serve(`${API_PROVIDERS}${extra}${faults ? `\nfaults:\n${faults}` : ''}`);
  const { config, env } = routerConfigFor(served, {
    aliases: {
      smart: ['openai/gpt-4o-mini', 'anthropic/claude-haiku-4-5'],
      embed: ['openai/text-embedding-3-small', 'mistral/mistral-embed'],
    },
    routing: { weights: { cost: 0, latency: 0, reliability: 0, quality: 10, capacity: 0 } },
  });
  for (const p of config.providers)
    for (const m of p.models) if (/embed/.test(m.name)) (m as { kind: string }).kind = 'embeddings';
  const router = new RouterClass(config, { env, seed: 3 });
  for (const t of router.targets) (t.modelConfig as { quality: number }).quality = t.provider === prefer ? 1 : 0.5;
  const server = await startRouterServer(router, { port: 0 });
  return {
    served,
    router,
    server,
    rows: (cid) => [...served.sim.ledger.rowsIterator()].filter((r) => cid === undefined || r.correlationId === cid),
    async close() {
      await server.close();
      await router.close();
      await served.close();
    },
  };
}
