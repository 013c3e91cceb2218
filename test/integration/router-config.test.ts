import { describe, expect, it } from 'vitest';
import { parseRouterConfig, type ConfigIssue } from '../../router/index.js';
import { formatIssues, locateInYaml } from '../../simulator/index.js';

// The router reports issues by path; the CLI locates them with the simulator's YAML locator.
const located = (text: string, issues: ConfigIssue[]) => formatIssues('router.yaml', locateInYaml(text, issues));

describe('parseRouterConfig', () => {
  it('reports every problem at once, located', () => {
    const text = `version: 1
providers:
  - id: openai
    vendor: openia
    baseUrl: not a url
    keys: [{ id: main, env: OPENAI_KEY }]
    models: [gpt-4o-mini]
    timeout: 5s
retry: { maxAttempts: 0, backoff: { base: soon } }
`;
    const r = parseRouterConfig(text, {});
    expect(r.ok ? 'ok' : located(text, r.issues)).toMatchInlineSnapshot(`
      "router.yaml:4:13 CONFIG_INVALID_VALUE providers[0].vendor: Invalid option: expected one of "openai"|"azure-openai"|"anthropic"|"gemini"|"groq"|"mistral"|"deepseek"|"openai-compatible"|"bedrock"|"vertex-ai"|"openrouter"|"cerebras"|"together"|"xai"
      router.yaml:5:14 CONFIG_INVALID_VALUE providers[0].baseUrl: expected an http(s) URL
      router.yaml:8:5 CONFIG_UNKNOWN_KEY providers[0].timeout: unknown key "timeout"
      router.yaml:9:23 CONFIG_OUT_OF_RANGE retry.maxAttempts: Too small: expected number to be >0
      router.yaml:9:43 CONFIG_INVALID_DURATION retry.backoff.base: expected a duration such as 250ms, 30s or 2m, got "soon""
    `);
  });

  it('checks cross-references and the environment after the schema passes', () => {
    const text = `version: 1
providers:
  - { id: a, vendor: openai, baseUrl: "http://127.0.0.1:1/v1", keys: [{ id: k, env: SET }, { id: k, env: UNSET }], models: [m] }
  - { id: a, vendor: azure-openai, baseUrl: "http://127.0.0.1:1", keys: [{ id: k, env: SET }], models: [m] }
aliases:
  fast: [a/m, b/m]
`;
    const r = parseRouterConfig(text, { SET: 'x' });
    expect(r.ok ? 'ok' : located(text, r.issues)).toMatchInlineSnapshot(`
      "router.yaml:3:98 CONFIG_DUPLICATE_ID providers[0].keys[1].id: key id "k" is used twice in provider "a"
      router.yaml:3:106 CONFIG_MISSING_ENV providers[0].keys[1].env: environment variable UNSET is not set
      router.yaml:4:5 CONFIG_MISSING_FIELD providers[1]: an azure-openai provider needs apiVersion
      router.yaml:4:11 CONFIG_DUPLICATE_ID providers[1].id: provider id "a" is used twice
      router.yaml:6:15 CONFIG_UNKNOWN_REFERENCE aliases.fast[1]: no configured target "b/m""
    `);
  });

  it('locates a YAML syntax error where it is, not at 1:1', () => {
    const text = 'version: 1\nproviders: []\nversion: 2\n';
    const r = parseRouterConfig(text, {});
    expect(r.ok ? 'ok' : located(text, r.issues)).toMatchInlineSnapshot(
      `"router.yaml:3:1 CONFIG_YAML_SYNTAX (root): Map keys must be unique"`,
    );
  });

  it('fills every default from a minimal config', () => {
    const r = parseRouterConfig(
      'version: 1\nproviders:\n  - { id: a, vendor: openai, baseUrl: "http://127.0.0.1:1/v1", keys: [{ id: k, env: K }], models: [m] }\n',
      { K: 'x' },
    );
    expect(r.ok && r.config).toMatchObject({
      autoModel: 'auto',
      deadline: { default: 30_000 },
      retry: { maxAttempts: 6 },
      breaker: { failureThreshold: 3 },
      providers: [{ models: [{ name: 'm', quality: 0.5 }] }],
    });
  });

  it('reads a Redis store whose URL is inline or in the environment, and says what is wrong with it', () => {
    const provider = `providers: [{ id: a, vendor: openai, baseUrl: "http://127.0.0.1:1/v1", keys: [{ id: k, env: SET }], models: [m] }]`;
    const ok = parseRouterConfig(`version: 1\n${provider}\nstore: { kind: redis, env: FLEET }\n`, {
      SET: 'x',
      FLEET: 'redis://127.0.0.1:6379/2',
    });
    expect(ok.ok && ok.config.store).toEqual({
      kind: 'redis',
      env: 'FLEET',
      keyPrefix: 'throttlelab:',
      timeout: 250,
      flushEvery: 50,
    });
    const bad = [
      'store: { kind: redis, url: "http://127.0.0.1:6379", timeout: soon }',
      'store: { kind: redis, url: "redis://127.0.0.1:6379", env: FLEET }',
      'store: { kind: redis, env: MISSING }',
      'store: { kind: redis }',
      'store: { kind: redis, env: NOT_A_URL }',
      'store: { kind: etcd }',
    ].map((line) => {
      const text = `version: 1\n${provider}\n${line}\n`;
      const r = parseRouterConfig(text, { SET: 'x', FLEET: 'redis://h:1', NOT_A_URL: 'localhost:6379' });
      return r.ok ? 'ok' : located(text, r.issues);
    });
    expect(bad.join('\n')).toMatchInlineSnapshot(`
      "router.yaml:3:28 CONFIG_INVALID_VALUE store.url: expected a redis:// or rediss:// URL
      router.yaml:3:62 CONFIG_INVALID_DURATION store.timeout: expected a duration such as 250ms, 30s or 2m, got "soon"
      router.yaml:3:8 CONFIG_INVALID_VALUE store: give "url" or "env" (the variable holding the URL), not both
      router.yaml:3:28 CONFIG_MISSING_ENV store.env: environment variable MISSING is not set (it holds the Redis URL; or give "url")
      router.yaml:3:8 CONFIG_MISSING_ENV store: environment variable REDIS_URL is not set (it holds the Redis URL; or give "url")
      router.yaml:3:28 CONFIG_INVALID_VALUE store.env: environment variable NOT_A_URL does not hold a redis:// or rediss:// URL
      router.yaml:3:16 CONFIG_INVALID_VALUE store.kind: Invalid discriminator value. Expected 'memory' | 'redis'"
    `);
  });
});
