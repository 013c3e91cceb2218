import { providerVar, SIMULATOR_URL_VAR } from '../launch/provider-env.js';
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
 * Portkey's routing config for a scenario, written from the scenario's own providers and the
 * `${THROTTLELAB_…}` variables the harness fills in per run (never a key or a port): one target
 * per provider Portkey can reach (its first model, `max_tokens` for Anthropic, which requires it;
 * Anthropic's `custom_host` ends in `/v1`, as Portkey appends only the path after it); `auto` falls
 * back across all of them in order; `provider/model` and the scenario's aliases are conditions on
 * the requested model. Returned as one line of JSON: a header value cannot hold a line break.
 */
export function portkeyConfig(scenario: RunScenario, maxTokens = 1024): { config: string; skipped: string[] } {
  const targets: Target[] = [];
  const skipped: string[] = [];
  for (const p of scenario.providers) {
    const provider = PORTKEY_PROVIDERS[p.vendor];
    if (!provider) {
      skipped.push(`${p.id} (${p.vendor})`);
      continue;
    }
    const base = `\${${providerVar(p.id, 'BASE_URL')}}`;
    const fromRoot = HOST_FROM_ROOT[p.vendor];
    targets.push({
      name: p.id,
      provider,
      api_key: `\${${providerVar(p.id, 'API_KEY')}}`,
      custom_host:
        fromRoot !== undefined
          ? `\${${SIMULATOR_URL_VAR}}/${p.id}${fromRoot}`
          : p.vendor === 'anthropic'
            ? `${base}/v1`
            : base,
      override_params: { model: p.models[0], ...(p.vendor === 'anthropic' ? { max_tokens: maxTokens } : {}) },
    });
  }
  const byName = new Map(targets.map((t) => [t.name, t]));
  const fallback = (name: string, list: Target[]) => ({
    name,
    strategy: { mode: 'fallback', on_status_codes: FALLBACK_ON },
    targets: list,
  });
  const groups: Array<{ model: string; target: object }> = [];
  for (const p of scenario.providers)
    for (const m of p.models) {
      const t = byName.get(p.id);
      if (t)
        groups.push({
          model: `${p.id}/${m}`,
          target: { ...t, name: `${p.id}/${m}`, override_params: { ...t.override_params, model: m } },
        });
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
      const t = byName.get(p.id);
      if (t && !(m in aliases) && m !== 'auto')
        bare.set(m, [...(bare.get(m) ?? []), { ...t, override_params: { ...t.override_params, model: m } }]);
    }
  for (const [m, list] of bare)
    if (!groups.some((g) => g.model === m)) groups.push({ model: m, target: fallback(m, list) });
  for (const [alias, list] of Object.entries(aliases)) {
    const members = list.flatMap((entry) => {
      const slash = entry.indexOf('/');
      const t = byName.get(slash < 0 ? entry : entry.slice(0, slash));
      if (!t) return [];
      return slash < 0 ? [t] : [{ ...t, override_params: { ...t.override_params, model: entry.slice(slash + 1) } }];
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
