import { describe, expect, it } from 'vitest';
import { loadRunScenarioFile } from '../scenario/parse-run-scenario.js';
import { portkeyConfig } from './portkey-config.js';

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
    // The four faults of the old docs example: a key and host from variables, /v1 on Anthropic's
    // host, a model mapping, and the max_tokens Anthropic requires.
    expect(anthropic).toMatchObject({
      api_key: '${THROTTLELAB_ANTHROPIC_API_KEY}',
      custom_host: '${THROTTLELAB_ANTHROPIC_BASE_URL}/v1',
      override_params: { model: 'claude-sonnet-4-5', max_tokens: 1024 },
    });
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
});
