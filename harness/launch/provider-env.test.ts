import { describe, expect, it } from 'vitest';
import { envName, providerEnv, scenarioKeyValues } from './provider-env.js';

describe('providerEnv', () => {
  it('names every provider base URL, vendor, models and key, and nothing from the process', () => {
    const endpoints = [
      {
        id: 'azure-east',
        vendor: 'azure-openai',
        baseUrl: 'http://127.0.0.1:9/azure-east',
        models: ['gpt-4o', 'gpt-4o-mini'],
        keys: [{ id: 'main' }, { id: 'spare.2' }],
      },
    ];
    const env = providerEnv(endpoints as never, 'http://127.0.0.1:9', (_p, k) => (k === 'main' ? 'sk-1' : 'sk-2'));
    expect(env).toEqual({
      THROTTLELAB_SIMULATOR_URL: 'http://127.0.0.1:9',
      THROTTLELAB_PROVIDERS: 'azure-east',
      THROTTLELAB_AZURE_EAST_BASE_URL: 'http://127.0.0.1:9/azure-east',
      THROTTLELAB_AZURE_EAST_VENDOR: 'azure-openai',
      THROTTLELAB_AZURE_EAST_MODELS: 'gpt-4o,gpt-4o-mini',
      THROTTLELAB_AZURE_EAST_KEY_MAIN: 'sk-1',
      THROTTLELAB_AZURE_EAST_KEY_SPARE_2: 'sk-2',
      THROTTLELAB_AZURE_EAST_API_KEY: 'sk-1',
      THROTTLELAB_AZURE_EAST_API_KEYS: 'sk-1,sk-2',
    });
    expect(envName('a-b.c')).toBe('A_B_C');
  });
});

describe('scenarioKeyValues', () => {
  it('takes a key written in the scenario, else the variable it names, else none', () => {
    const scenario = {
      providers: [
        {
          id: 'openai',
          keys: [
            { id: 'a', value: 'sk-a' },
            { id: 'b', env: 'B_KEY' },
            { id: 'c', env: 'C_KEY' },
          ],
        },
      ],
    };
    const value = scenarioKeyValues(scenario, { B_KEY: 'sk-b' });
    expect(['a', 'b', 'c', 'd'].map((k) => value('openai', k))).toEqual(['sk-a', 'sk-b', undefined, undefined]);
    expect(value('anthropic', 'a')).toBeUndefined();
    expect(scenarioKeyValues(scenario, undefined)('openai', 'b')).toBeUndefined();
  });
});
