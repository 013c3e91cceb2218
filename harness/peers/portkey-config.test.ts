import { describe, expect, it } from 'vitest';
import { loadRunScenarioFile } from '../scenario/parse-run-scenario.js';
import { isHarnessError } from '../errors.js';
import { loadAlwaysSetsMaxTokens, portkeyConfig, portkeyScenario } from './portkey-config.js';

describe('portkeyConfig', () => {
  it("writes one line of JSON from the scenario's providers and variables: auto, provider/model, aliases", async () => {
    const loaded = await loadRunScenarioFile('scenarios/quickstart.yaml', {});
    if (!loaded.ok) throw new Error(loaded.report);
    const { config, skipped } = portkeyConfig(loaded.scenario);
    expect(config).not.toMatch(/[\r\n]/);
    expect(skipped).toEqual([]);
    const c = JSON.parse(config) as {
      strategy: { mode: string; conditions: Array<{ query: object; then: string }>; default: string };
      targets: Array<{ name: string; targets?: Array<Record<string, unknown>> } & Record<string, unknown>>;
    };
    expect(c.strategy).toMatchObject({ mode: 'conditional', default: 'auto' });
    const auto = c.targets.find((t) => t.name === 'auto')!;
    expect(auto.targets!.map((t) => t.provider)).toEqual(['openai', 'anthropic', 'google']);
    const anthropic = auto.targets!.find((t) => t.provider === 'anthropic')!;
    // The faults of the old docs example: a key and host from variables, /v1 on Anthropic's host,
    // a model mapping; no max_tokens default, as every request of quickstart's load sends its own.
    expect(anthropic).toMatchObject({
      api_key: '${THROTTLELAB_ANTHROPIC_API_KEY}',
      custom_host: '${THROTTLELAB_ANTHROPIC_BASE_URL}/v1',
      override_params: { model: 'claude-sonnet-4-5' },
    });
    expect(anthropic.override_params).not.toHaveProperty('max_tokens');
    expect(c.strategy.conditions.map((x) => x.then)).toEqual(
      expect.arrayContaining(['openai/gpt-4o-mini', 'anthropic/claude-haiku-4-5', 'fast']),
    );
    // An alias's entries keep their own models.
    expect(
      c.targets
        .find((t) => t.name === 'fast')!
        .targets!.map((t) => `${t.name}:${(t.override_params as { model: string }).model}`),
    ).toEqual(['openai:gpt-4o-mini', 'gemini:gemini-2.5-flash', 'anthropic:claude-haiku-4-5']);
    // No secret or port is written: only the variables the harness fills in per run.
    expect(config).not.toMatch(/sk-|127\.0\.0\.1/);
  });

  it('gives Portkey every key of each provider: auto over all, a pinned model over its provider’s keys', async () => {
    const loaded = await loadRunScenarioFile('scenarios/conformance/16-prompt-cache.yaml', {});
    if (!loaded.ok) throw new Error(loaded.report);
    const c = JSON.parse(portkeyConfig(loaded.scenario).config) as {
      targets: Array<{ name: string; targets?: Array<{ name: string; api_key: string }> }>;
    };
    const keys = loaded.scenario.providers.flatMap((p) => p.keys.map((k, i) => [p, k, i] as const));
    expect(keys.length).toBeGreaterThan(loaded.scenario.providers.length);
    const auto = c.targets.find((t) => t.name === 'auto')!;
    expect(auto.targets!.map((t) => t.api_key)).toEqual(
      keys.map(([p, k, i]) =>
        i === 0
          ? `\${THROTTLELAB_${p.id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_API_KEY}`
          : `\${THROTTLELAB_${p.id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_KEY_${k.id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}}`,
      ),
    );
    const multi = loaded.scenario.providers.find((p) => p.keys.length > 1)!;
    const pinned = c.targets.find((t) => t.name === `${multi.id}/${multi.models[0]}`)!;
    expect(pinned.targets!.map((t) => t.name)).toEqual(multi.keys.map(() => `${multi.id}/${multi.models[0]}`));
  });

  it('sets an Anthropic max_tokens default only when some request of the load may come without one', async () => {
    const loaded = await loadRunScenarioFile('scenarios/quickstart.yaml', {});
    if (!loaded.ok) throw new Error(loaded.report);
    const requests = { ...loaded.scenario.load!.requests, maxTokens: undefined };
    const bare = { ...loaded.scenario, load: { ...loaded.scenario.load!, requests } };
    expect(loadAlwaysSetsMaxTokens(loaded.scenario)).toBe(true);
    expect(loadAlwaysSetsMaxTokens(bare)).toBe(false);
    expect(portkeyConfig(bare, 512).config).toContain('"max_tokens":512');
    expect(portkeyConfig(loaded.scenario, 512).config).not.toContain('max_tokens');
  });

  it('drops from the load every model the config cannot route, instead of letting Portkey answer it from auto', async () => {
    const loaded = await loadRunScenarioFile('scenarios/conformance/02-429-hint-forms.yaml', {});
    if (!loaded.ok) throw new Error(loaded.report);
    const { scenario, config, skipped, dropped } = portkeyScenario(loaded.scenario);
    // Azure and the IETF draft vendor have no Portkey provider here: requests pinned to them would
    // fall to the default route and come back from another provider.
    expect(skipped).toEqual(['azure (azure-openai)', 'generic (ratelimit-draft)']);
    expect(dropped).toEqual(['azure/gpt-4o-mini', 'generic/generic-1']);
    const sent = scenario.load!.requests.models.map((m) => m.model);
    expect(sent).toEqual([
      'auto',
      'openai/gpt-4o-mini',
      'anthropic/claude-haiku-4-5',
      'gemini/gemini-2.5-flash',
      'groq/llama-3.1-8b-instant',
    ]);
    // Every name still sent is one the config routes by a condition of its own (or auto).
    const routed = (JSON.parse(config) as { strategy: { conditions: Array<{ then: string }> } }).strategy.conditions;
    for (const m of sent.filter((x) => x !== 'auto')) expect(routed.map((c) => c.then)).toContain(m);
    expect(scenario.load!.headers['x-portkey-config']).toBe(config);
  });

  it("routes a provider's own model name asked bare to the providers serving it", async () => {
    const loaded = await loadRunScenarioFile('scenarios/quickstart.yaml', {});
    if (!loaded.ok) throw new Error(loaded.report);
    const load = loaded.scenario.load!;
    const bare = { ...load, requests: { ...load.requests, models: [{ model: 'gpt-4o-mini', weight: 1 }] } };
    const { scenario, dropped } = portkeyScenario({ ...loaded.scenario, load: bare });
    expect(dropped).toEqual([]);
    expect(scenario.load!.requests.models.map((m) => m.model)).toEqual(['gpt-4o-mini']);
  });

  it('gives OpenRouter and Together the simulated root as host, as Portkey appends /v1 itself', async () => {
    const loaded = await loadRunScenarioFile('scenarios/conformance/11-newer-vendors.yaml', {});
    if (!loaded.ok) throw new Error(loaded.report);
    const c = JSON.parse(portkeyConfig(loaded.scenario).config) as {
      targets: Array<{ name: string; targets?: Array<{ name: string; custom_host: string }> }>;
    };
    const hosts = Object.fromEntries(
      c.targets.find((t) => t.name === 'auto')!.targets!.map((t) => [t.name, t.custom_host]),
    );
    expect(hosts.openrouter).toBe('${THROTTLELAB_SIMULATOR_URL}/openrouter/api');
    expect(hosts.together).toBe('${THROTTLELAB_SIMULATOR_URL}/together');
    expect(hosts.cerebras).toBe('${THROTTLELAB_CEREBRAS_BASE_URL}');
  });

  it('refuses a scenario none of whose models it can route', async () => {
    const loaded = await loadRunScenarioFile('scenarios/conformance/02-429-hint-forms.yaml', {});
    if (!loaded.ok) throw new Error(loaded.report);
    const load = loaded.scenario.load!;
    const azureOnly = { ...load, requests: { ...load.requests, models: [{ model: 'azure/gpt-4o-mini', weight: 1 }] } };
    let error: unknown;
    try {
      portkeyScenario({ ...loaded.scenario, load: azureOnly });
    } catch (e) {
      error = e;
    }
    expect(isHarnessError(error, 'HARNESS_PEER_UNROUTABLE')).toBe(true);
    expect((error as Error).message).toContain('azure/gpt-4o-mini');
  });
});
