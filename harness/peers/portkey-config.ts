import { keyVar, providerVar, SIMULATOR_URL_VAR } from '../launch/provider-env.js';
import { HarnessError } from '../errors.js';
import type { RunScenario } from '../scenario/schema.js';

/** Portkey's provider id for each simulated vendor it can reach (Azure, Bedrock and Vertex need cloud settings it takes elsewhere). */
export const PORTKEY_PROVIDERS: Record<string, string> = {
  openai: 'openai',
  anthropic: 'anthropic',
  gemini: 'google',
  groq: 'groq',
  mistral: 'mistral-ai',
  deepseek: 'deepseek',
  together: 'together-ai',
  cerebras: 'cerebras',
  openrouter: 'openrouter',
  xai: 'x-ai',
};

/**
 * Vendors whose Portkey provider appends `/v1/chat/completions` to its host (OpenRouter's
 * `https://openrouter.ai/api`, Together's `https://api.together.xyz`): their `custom_host` is the
 * simulated provider's root plus this path, not its base URL, which ends in `/v1` already (a
 * doubled `/v1` is a 404 from the simulator, and a goodput FAIL that would be the config's, not
 * Portkey's).
 */
const HOST_FROM_ROOT: Record<string, string> = { openrouter: '/api', together: '' };

/** Status codes on which Portkey moves to the next target. */
const FALLBACK_ON = [429, 500, 502, 503, 504, 529];

interface Target {
  name: string;
  provider: string;
  api_key: string;
  custom_host: string;
  override_params: Record<string, unknown>;
}

/**
 * Whether every request of the load names its own `max_tokens`: then Portkey needs no default for
 * Anthropic, which requires one. Portkey has no "default unless the client sent one": its
 * `override_params` are merged over the body (`{...body, ...overrideParams}`), so a default there
 * overrides the client's value and REQ-1 fails for the config's sake. It is set only where some
 * request may come without one (a plain load with no `maxTokens`, a surface drawing it for fewer
 * than all); there the limit stands: such a scenario's REQ-1 FAILs on Anthropic are the config's.
 */
export function loadAlwaysSetsMaxTokens(scenario: RunScenario): boolean {
  const r = scenario.load?.requests;
  if (!r) return false;
  if (!r.surface) return r.maxTokens !== undefined;
  const a = r.surface.apis;
  // Messages always carries max_tokens; chat and Responses only at the surface's share; embeddings none asked.
  return r.surface.maxTokens >= 1 || (a.chat === 0 && a.responses === 0);
}

/**
 * Portkey's routing config for a scenario, written from the scenario's own providers and the
 * `${THROTTLELAB_…}` variables the harness fills in per run (never a key or a port): one target
 * per key of each provider Portkey can reach, in the scenario's order (the first key's variable
 * `…_API_KEY`, the others `…_KEY_<ID>`), so Portkey is given every key the capacity oracles count
 * (its first model; `max_tokens` for Anthropic unless every request sends its own, see
 * `loadAlwaysSetsMaxTokens`; Anthropic's `custom_host` ends in `/v1`, as Portkey appends only the
 * path after it); `auto` falls back across all of them in order; `provider/model` and the
 * scenario's aliases are conditions on the requested model (over the provider's keys in turn).
 * Returned as one line of JSON: a header value cannot hold a line break.
 */
export function portkeyConfig(scenario: RunScenario, maxTokens = 1024): { config: string; skipped: string[] } {
  const targets: Target[] = [];
  const skipped: string[] = [];
  const defaultMaxTokens = !loadAlwaysSetsMaxTokens(scenario);
  const byName = new Map<string, Target[]>();
  for (const p of scenario.providers) {
    const provider = PORTKEY_PROVIDERS[p.vendor];
    if (!provider) {
      skipped.push(`${p.id} (${p.vendor})`);
      continue;
    }
    const base = `\${${providerVar(p.id, 'BASE_URL')}}`;
    const fromRoot = HOST_FROM_ROOT[p.vendor];
    const own = p.keys.map((k, i): Target => ({
      name: p.id,
      provider,
      api_key: `\${${i === 0 ? providerVar(p.id, 'API_KEY') : keyVar(p.id, k.id)}}`,
      custom_host:
        fromRoot !== undefined
          ? `\${${SIMULATOR_URL_VAR}}/${p.id}${fromRoot}`
          : p.vendor === 'anthropic'
            ? `${base}/v1`
            : base,
      override_params: {
        model: p.models[0],
        ...(p.vendor === 'anthropic' && defaultMaxTokens ? { max_tokens: maxTokens } : {}),
      },
    }));
    byName.set(p.id, own);
    targets.push(...own);
  }
  const fallback = (name: string, list: Target[]) => ({
    name,
    strategy: { mode: 'fallback', on_status_codes: FALLBACK_ON },
    targets: list,
  });
  const withModel = (list: readonly Target[], model: string) =>
    list.map((t) => ({ ...t, override_params: { ...t.override_params, model } }));
  const groups: Array<{ model: string; target: object }> = [];
  for (const p of scenario.providers)
    for (const m of p.models) {
      const own = byName.get(p.id);
      if (!own) continue;
      const name = `${p.id}/${m}`;
      const list = withModel(own, m).map((t) => ({ ...t, name }));
      groups.push({ model: name, target: list.length === 1 ? list[0]! : fallback(name, list) });
    }
  const aliases: Record<string, string[]> = { ...scenario.expect.aliases };
  if (scenario.router.kind === 'reference') {
    const configured = (scenario.router.config as { aliases?: Record<string, string[]> }).aliases;
    for (const [name, list] of Object.entries(configured ?? {})) aliases[name] ??= list;
  }
  // A provider's own model name asked bare: the providers serving it, in order.
  const bare = new Map<string, Target[]>();
  for (const p of scenario.providers)
    for (const m of p.models) {
      const own = byName.get(p.id);
      if (own && !(m in aliases) && m !== 'auto') bare.set(m, [...(bare.get(m) ?? []), ...withModel(own, m)]);
    }
  for (const [m, list] of bare)
    if (!groups.some((g) => g.model === m)) groups.push({ model: m, target: fallback(m, list) });
  for (const [alias, list] of Object.entries(aliases)) {
    const members = list.flatMap((entry) => {
      const slash = entry.indexOf('/');
      const own = byName.get(slash < 0 ? entry : entry.slice(0, slash));
      if (!own) return [];
      return slash < 0 ? own : withModel(own, entry.slice(slash + 1));
    });
    if (members.length) groups.push({ model: alias, target: fallback(alias, members) });
  }
  const config = {
    strategy: {
      mode: 'conditional',
      conditions: groups.map((g) => ({ query: { 'params.model': { $eq: g.model } }, then: g.model })),
      default: 'auto',
    },
    targets: [fallback('auto', targets), ...groups.map((g) => g.target)],
  };
  return { config: JSON.stringify(config), skipped };
}

/**
 * The scenario as Portkey can be judged on it: its load sends only the model names the generated
 * config routes (`auto`, a reachable `provider/model`, a provider's own model name, an alias with a
 * reachable member), with the config in the `x-portkey-config` header. A name it cannot route is
 * dropped from the load and listed, never sent: Portkey would route it by the config's default
 * (`auto`), answer with another provider's model, and answer-integrity would blame Portkey for the
 * harness's config. Throws HARNESS_PEER_UNROUTABLE when no model of the load is left.
 */
export function portkeyScenario(
  scenario: RunScenario,
  maxTokens = 1024,
): { scenario: RunScenario; config: string; skipped: string[]; dropped: string[] } {
  const load = scenario.load;
  if (!load) throw new HarnessError('HARNESS_PEER_UNROUTABLE', `scenario "${scenario.name}" has no load`);
  const { config, skipped } = portkeyConfig(scenario, maxTokens);
  const routed = new Set(
    (JSON.parse(config) as { strategy: { conditions: Array<{ then: string }> } }).strategy.conditions.map(
      (c) => c.then,
    ),
  );
  const reachable = Object.keys(PORTKEY_PROVIDERS);
  const anyTarget = scenario.providers.some((p) => reachable.includes(p.vendor));
  const routable = (model: string) => (model === 'auto' ? anyTarget : routed.has(model));
  const models = load.requests.models.filter((m) => routable(m.model));
  const dropped = load.requests.models.filter((m) => !routable(m.model)).map((m) => m.model);
  if (models.length === 0)
    throw new HarnessError(
      'HARNESS_PEER_UNROUTABLE',
      `scenario "${scenario.name}": Portkey's generated config routes none of the load's models (${dropped.join(', ')})`,
    );
  return {
    scenario: {
      ...scenario,
      load: {
        ...load,
        headers: { ...load.headers, 'x-portkey-config': config },
        requests: { ...load.requests, models },
      },
    },
    config,
    skipped,
    dropped,
  };
}
