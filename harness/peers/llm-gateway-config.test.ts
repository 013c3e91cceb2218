import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../errors.js';
import { loadRunScenarioFile } from '../scenario/parse-run-scenario.js';
import type { RunScenario } from '../scenario/schema.js';
import { llmGatewayConfig, llmGatewayScenario } from './llm-gateway-config.js';

async function load(file: string): Promise<RunScenario> {
  const loaded = await loadRunScenarioFile(file, {});
  if (!loaded.ok) throw new Error(loaded.report);
  return loaded.scenario;
}

interface Config {
  server: { host: string; port: string };
  maxRetries: number;
  adapters: Array<{ type: string }>;
  models: Array<{ name: string; provider: { type: string; config: Record<string, unknown> } }>;
  plugins: Array<{ type: string; config: { model: string; fallbacks: string[] } }>;
}

describe('llmGatewayConfig', () => {
  it('gives the gateway every key: one models entry per key, in the fallback chain', async () => {
    const scenario = await load('scenarios/conformance/16-prompt-cache.yaml');
    const c = llmGatewayConfig(scenario, 'auto').config as unknown as Config;
    const p = scenario.providers.find((x) => x.keys.length > 1)!;
    const own = c.models.filter((m) => m.name.startsWith(`${p.id}/`));
    expect(own.map((m) => m.provider.config.apiKey)).toEqual(
      p.keys.map((k, i) => {
        const env = (id: string) => id.toUpperCase().replace(/[^A-Z0-9]/g, '_');
        return i === 0 ? `\${THROTTLELAB_${env(p.id)}_API_KEY}` : `\${THROTTLELAB_${env(p.id)}_KEY_${env(k.id)}}`;
      }),
    );
    const route = c.plugins[0]!.config;
    expect([route.model, ...route.fallbacks]).toEqual(c.models.map((m) => m.name));
    expect(new Set(c.models.map((m) => m.name)).size).toBe(c.models.length);
    expect(c.maxRetries).toBe(c.models.length + 1);
  });

  it("writes a model-router chain over the scenario's reachable providers, from variables only", async () => {
    const scenario = await load('scenarios/quickstart.yaml');
    const { config, chain, skipped } = llmGatewayConfig(scenario, 'auto');
    const c = config as unknown as Config;
    // Gemini speaks neither of llm-gateway's provider types.
    expect(skipped).toEqual(['gemini (gemini)']);
    expect(chain).toEqual(['openai/gpt-4o-mini', 'anthropic/claude-sonnet-4-5']);
    expect(c.plugins).toEqual([
      {
        name: 'route',
        type: 'model-router',
        config: { model: 'openai/gpt-4o-mini', fallbacks: ['anthropic/claude-sonnet-4-5'] },
      },
    ]);
    expect(c.models.map((m) => m.provider)).toEqual([
      {
        type: 'openai',
        config: {
          baseUrl: '${THROTTLELAB_OPENAI_BASE_URL}',
          apiKey: '${THROTTLELAB_OPENAI_API_KEY}',
          model: 'gpt-4o-mini',
        },
      },
      {
        type: 'anthropic',
        config: {
          baseUrl: '${THROTTLELAB_ANTHROPIC_BASE_URL}',
          apiKey: '${THROTTLELAB_ANTHROPIC_API_KEY}',
          model: 'claude-sonnet-4-5',
          maxTokens: 1024,
        },
      },
    ]);
    // One more re-evaluation than the chain has members, so "No more models to try" is answered.
    expect(c.maxRetries).toBe(3);
    expect(c.server).toEqual({ host: '127.0.0.1', port: '${THROTTLELAB_ROUTER_PORT}' });
    expect(c.adapters.map((a) => a.type)).toEqual(['openai']);
    // No secret or port is written: only the variables the gateway reads from its environment.
    expect(JSON.stringify(config)).not.toMatch(/sk-|127\.0\.0\.1:\d|"port":\d/);
  });

  it("routes an alias's members with their own models, and Azure on its v1 path", async () => {
    const quick = await load('scenarios/quickstart.yaml');
    expect(llmGatewayConfig(quick, 'fast').chain).toEqual(['openai/gpt-4o-mini', 'anthropic/claude-haiku-4-5']);
    const hints = await load('scenarios/conformance/02-429-hint-forms.yaml');
    const azure = llmGatewayConfig(hints, 'azure/gpt-4o-mini').config as unknown as Config;
    expect(azure.models).toHaveLength(1);
    expect(azure.models[0]!.provider.config.baseUrl).toBe('${THROTTLELAB_AZURE_BASE_URL}/openai/v1');
    expect(azure.plugins[0]!.config).toEqual({ model: 'azure/gpt-4o-mini', fallbacks: [] });
  });

  it('refuses a model no reachable provider serves', async () => {
    const scenario = await load('scenarios/quickstart.yaml');
    let error: unknown;
    try {
      llmGatewayConfig(scenario, 'gemini/gemini-2.5-flash');
    } catch (e) {
      error = e;
    }
    expect(isHarnessError(error, 'HARNESS_PEER_UNROUTABLE')).toBe(true);
  });
});

describe('llmGatewayScenario', () => {
  it('sends auto alone when the load asks for it, and lists every other name as not sent', async () => {
    const scenario = await load('scenarios/conformance/02-429-hint-forms.yaml');
    const { scenario: sent, routed, dropped, skipped } = llmGatewayScenario(scenario);
    expect(routed).toBe('auto');
    expect(sent.load!.requests.models.map((m) => m.model)).toEqual(['auto']);
    expect(dropped).toEqual([
      'openai/gpt-4o-mini',
      'azure/gpt-4o-mini',
      'anthropic/claude-haiku-4-5',
      'gemini/gemini-2.5-flash',
      'groq/llama-3.1-8b-instant',
      'generic/generic-1',
    ]);
    expect(skipped).toEqual(['gemini (gemini)']);
    // The IETF-draft vendor speaks OpenAI's API: llm-gateway reaches it, unlike Portkey.
    const chain = (llmGatewayConfig(scenario, 'auto').config as unknown as Config).models.map((m) => m.name);
    expect(chain).toEqual([
      'openai/gpt-4o-mini',
      'azure/gpt-4o-mini',
      'anthropic/claude-haiku-4-5',
      'groq/llama-3.1-8b-instant',
      'generic/generic-1',
    ]);
  });

  it("routes the load's first servable name when it does not ask for auto", async () => {
    const scenario = await load('scenarios/conformance/02-429-hint-forms.yaml');
    const l = scenario.load!;
    const pinned = [
      { model: 'gemini/gemini-2.5-flash', weight: 1 },
      { model: 'groq/llama-3.1-8b-instant', weight: 2 },
      { model: 'openai/gpt-4o-mini', weight: 1 },
    ];
    const {
      scenario: sent,
      routed,
      dropped,
    } = llmGatewayScenario({
      ...scenario,
      load: { ...l, requests: { ...l.requests, models: pinned } },
    });
    expect(routed).toBe('groq/llama-3.1-8b-instant');
    expect(sent.load!.requests.models).toEqual([{ model: 'groq/llama-3.1-8b-instant', weight: 2 }]);
    expect(dropped).toEqual(['gemini/gemini-2.5-flash', 'openai/gpt-4o-mini']);
  });

  it('refuses a scenario none of whose models it can route', async () => {
    const scenario = await load('scenarios/quickstart.yaml');
    const l = scenario.load!;
    let error: unknown;
    try {
      llmGatewayScenario({
        ...scenario,
        load: { ...l, requests: { ...l.requests, models: [{ model: 'gemini/gemini-2.5-flash', weight: 1 }] } },
      });
    } catch (e) {
      error = e;
    }
    expect(isHarnessError(error, 'HARNESS_PEER_UNROUTABLE')).toBe(true);
    expect((error as Error).message).toContain('gemini/gemini-2.5-flash');
  });
});
