import { HarnessError } from '../errors.js';
import { keyVar, providerVar, ROUTER_PORT_VAR } from '../launch/provider-env.js';
import type { RunScenario } from '../scenario/schema.js';

/**
 * The llm-gateway provider type for each simulated vendor it can reach, and the path its
 * OpenAI-style client needs after the vendor's base URL. 2.0.11 ships two provider types: `openai`
 * (any OpenAI-compatible API: it posts to `baseUrl + /chat/completions` with a Bearer key) and
 * `anthropic` (`baseUrl + /v1/messages`, `x-api-key`). Azure is reached on its v1 API
 * (`/openai/v1/chat/completions`, which takes a Bearer key); Gemini, Vertex AI and Bedrock speak
 * neither and are left out.
 */
export const LLM_GATEWAY_PROVIDERS: Record<string, { type: 'openai' | 'anthropic'; path: string }> = {
  openai: { type: 'openai', path: '' },
  'azure-openai': { type: 'openai', path: '/openai/v1' },
  anthropic: { type: 'anthropic', path: '' },
  groq: { type: 'openai', path: '' },
  mistral: { type: 'openai', path: '' },
  deepseek: { type: 'openai', path: '' },
  together: { type: 'openai', path: '' },
  cerebras: { type: 'openai', path: '' },
  openrouter: { type: 'openai', path: '' },
  xai: { type: 'openai', path: '' },
  'ratelimit-draft': { type: 'openai', path: '' },
};

/** One provider and model: a `models` entry of the gateway's config, named `provider/model`. */
interface Member {
  provider: string;
  model: string;
}

/**
 * Each model name the scenario's load may ask for and the chain of providers it falls back
 * across: `auto` (every reachable provider's first model, in order), `provider/model`, a
 * provider's own model name asked bare (the providers serving it), and the scenario's aliases.
 */
function chains(scenario: RunScenario): { chains: Map<string, Member[]>; skipped: string[] } {
  const reachable = scenario.providers.filter((p) => LLM_GATEWAY_PROVIDERS[p.vendor]);
  const skipped = scenario.providers
    .filter((p) => !LLM_GATEWAY_PROVIDERS[p.vendor])
    .map((p) => `${p.id} (${p.vendor})`);
  const out = new Map<string, Member[]>();
  if (reachable.length)
    out.set(
      'auto',
      reachable.map((p) => ({ provider: p.id, model: p.models[0]! })),
    );
  for (const p of reachable) for (const model of p.models) out.set(`${p.id}/${model}`, [{ provider: p.id, model }]);
  const aliases: Record<string, string[]> = { ...scenario.expect.aliases };
  if (scenario.router.kind === 'reference') {
    const configured = (scenario.router.config as { aliases?: Record<string, string[]> }).aliases;
    for (const [name, list] of Object.entries(configured ?? {})) aliases[name] ??= list;
  }
  for (const p of reachable)
    for (const model of p.models)
      if (!(model in aliases) && model !== 'auto' && !out.has(model))
        out.set(
          model,
          reachable.filter((q) => q.models.includes(model)).map((q) => ({ provider: q.id, model })),
        );
  for (const [alias, list] of Object.entries(aliases)) {
    const members = list.flatMap((entry): Member[] => {
      const slash = entry.indexOf('/');
      const p = reachable.find((q) => q.id === (slash < 0 ? entry : entry.slice(0, slash)));
      if (!p) return [];
      return [{ provider: p.id, model: slash < 0 ? p.models[0]! : entry.slice(slash + 1) }];
    });
    if (members.length) out.set(alias, members);
  }
  return { chains: out, skipped };
}

/**
 * llm-gateway's config (its JSON form; the gateway reads `.json` as it reads YAML) for routing
 * `model` of the scenario, written from the scenario's providers and the `${THROTTLELAB_…}`
 * variables the gateway fills in from its environment when it loads the file (never a key or a
 * port): one `models` entry per key of each provider of the chain (`provider/model`, then
 * `provider/model#<key>` for its other keys: the gateway is given every key the capacity oracles
 * count; its base URL, key and the model it sends upstream, `max_tokens` for Anthropic's Messages API), and the bundled `model-router` plugin
 * falling back along the chain. `maxRetries` (the gateway's bound on how many times a request is
 * re-evaluated) is one more than the chain: at its default of 3 a chain of three that all fail
 * leaves the request unanswered, the loop ending before model-router says "No more models to try".
 */
export function llmGatewayConfig(
  scenario: RunScenario,
  model: string,
  maxTokens = 1024,
): { config: Record<string, unknown>; chain: string[]; skipped: string[] } {
  const { chains: all, skipped } = chains(scenario);
  const members = all.get(model);
  if (!members)
    throw new HarnessError(
      'HARNESS_PEER_UNROUTABLE',
      `scenario "${scenario.name}": llm-gateway cannot route "${model}" (no reachable provider serves it)`,
    );
  const byId = new Map(scenario.providers.map((p) => [p.id, p]));
  // One entry per key: model-router falls back along entries, each with a key of its own.
  const models = members.flatMap((m) => {
    const p = byId.get(m.provider)!;
    const spec = LLM_GATEWAY_PROVIDERS[p.vendor]!;
    return p.keys.map((k, i) => ({
      name: i === 0 ? `${m.provider}/${m.model}` : `${m.provider}/${m.model}#${k.id}`,
      provider: {
        type: spec.type,
        config: {
          baseUrl: `\${${providerVar(m.provider, 'BASE_URL')}}${spec.path}`,
          apiKey: `\${${i === 0 ? providerVar(m.provider, 'API_KEY') : keyVar(m.provider, k.id)}}`,
          model: m.model,
          ...(spec.type === 'anthropic' ? { maxTokens } : {}),
        },
      },
    }));
  });
  const chain = models.map((m) => m.name);
  const config = {
    server: { host: '127.0.0.1', port: `\${${ROUTER_PORT_VAR}}` },
    logging: { level: 'warn', format: 'simple', destinations: ['console'] },
    maxRetries: chain.length + 1,
    adapters: [{ name: 'openai', type: 'openai', config: {} }],
    models,
    plugins: [
      {
        name: 'route',
        type: 'model-router',
        config: { model: chain[0], fallbacks: chain.slice(1) },
      },
    ],
  };
  return { config, chain, skipped };
}

/**
 * The scenario as llm-gateway can be judged on it. 2.0.11 routes every request of a project by
 * one chain: the client's `model` is not read (each `models` entry sends its own), `model-router`
 * has one list, and a plugin's `models` condition never holds before a model is chosen. So one
 * model name of the load is routed, `auto` if the load asks for it, else its first name the
 * scenario's providers can serve; the load's other names are dropped and listed, never sent
 * (llm-gateway would answer them from the routed chain, and answer-integrity would blame it for
 * the harness's config). Throws HARNESS_PEER_UNROUTABLE when no model of the load can be routed.
 */
export function llmGatewayScenario(
  scenario: RunScenario,
  maxTokens = 1024,
): { scenario: RunScenario; config: Record<string, unknown>; routed: string; skipped: string[]; dropped: string[] } {
  const load = scenario.load;
  if (!load) throw new HarnessError('HARNESS_PEER_UNROUTABLE', `scenario "${scenario.name}" has no load`);
  const { chains: all } = chains(scenario);
  const asked = load.requests.models;
  const pick = asked.find((m) => m.model === 'auto' && all.has('auto')) ?? asked.find((m) => all.has(m.model));
  if (!pick)
    throw new HarnessError(
      'HARNESS_PEER_UNROUTABLE',
      `scenario "${scenario.name}": llm-gateway's generated config routes none of the load's models (${asked.map((m) => m.model).join(', ')})`,
    );
  const { config, skipped } = llmGatewayConfig(scenario, pick.model, maxTokens);
  const dropped = [...new Set(asked.filter((m) => m.model !== pick.model).map((m) => m.model))];
  return {
    scenario: { ...scenario, load: { ...load, requests: { ...load.requests, models: [pick] } } },
    config,
    routed: pick.model,
    skipped,
    dropped,
  };
}
