import { describe, expect, it } from 'vitest';
import { formatIssues } from './issue.js';
import { parseScenario } from './parse-scenario.js';

function report(yaml: string, env: Record<string, string> = {}): string {
  const r = parseScenario(yaml, { env });
  return r.ok ? 'ok' : formatIssues('s.yaml', r.issues);
}

describe('parseScenario', () => {
  it('reports every schema problem at once, located', () => {
    expect(
      report(`version: 1
name: bad
providers:
  - id: openai
    vendor: openai
    models: [gpt-4o-mini]
    keys:
      - id: main
        value: sk-1
    quotas:
      - metric: requests
        limit: 5
        per: 5 seconds
        algoritm: token-bucket
      - metric: tokens
        limit: -3
  - id: Anthropic
    vendor: anthropics
    models: []
    keys: [{id: a, value: sk-2}]
faults:
  - id: y
    kind: explode
`),
    ).toMatchInlineSnapshot(`
      "s.yaml:13:14 SCENARIO_INVALID_DURATION providers[0].quotas[0].per: expected a duration such as 250ms, 5s or 1m30s (greater than zero, at most 3650d), got "5 seconds"
      s.yaml:14:9 SCENARIO_UNKNOWN_KEY providers[0].quotas[0].algoritm: unknown key "algoritm"
      s.yaml:16:16 SCENARIO_OUT_OF_RANGE providers[0].quotas[1].limit: Too small: expected number to be >0
      s.yaml:17:9 SCENARIO_INVALID_VALUE providers[1].id: expected a provider id of lower-case letters, digits and "-", starting with a letter
      s.yaml:18:13 SCENARIO_INVALID_VALUE providers[1].vendor: Invalid option: expected one of "openai"|"azure-openai"|"anthropic"|"gemini"|"groq"|"mistral"|"deepseek"|"ratelimit-draft"|"bedrock"|"vertex-ai"|"openrouter"|"cerebras"|"together"|"xai"
      s.yaml:19:13 SCENARIO_OUT_OF_RANGE providers[1].models: Too small: expected array to have >=1 items
      s.yaml:23:11 SCENARIO_INVALID_VALUE faults[0].kind: Invalid discriminator value. Expected 'status' | 'latency' | 'hang' | 'reset' | 'malformed' | 'stream-break' | 'keep-alive'"
    `);
  });

  it('reports every cross-reference problem at once, located', () => {
    expect(
      report(`version: 1
name: refs
providers:
  - id: openai
    vendor: openai
    models: [gpt-4o-mini]
    keys:
      - { id: main, value: sk-same }
      - { id: main, env: NOT_SET }
    quotas:
      - { metric: requests, limit: 5 }
      - { metric: concurrency, limit: 5, per: 1m }
      - { metric: tokens, limit: 5, per: 1m, model: gpt-5 }
    options: { retryAfterOn429: true, colour: blue }
  - id: gemini
    vendor: gemini
    models: [gemini-2.5-flash]
    keys: [{ id: main, value: sk-same }]
faults:
  - { id: f, kind: status, status: 429, match: { provider: nope } }
  - { id: f, kind: status, status: 429, match: { provider: gemini, model: gpt-4o-mini }, hint: { form: reset-header, after: 5s } }
  - { id: g, kind: status, status: 429, hint: { form: seconds } }
`),
    ).toMatchInlineSnapshot(`
      "s.yaml:9:15 SCENARIO_DUPLICATE_ID providers[0].keys[1].id: key id "main" is used twice in provider "openai"
      s.yaml:9:26 SCENARIO_MISSING_ENV providers[0].keys[1].env: environment variable NOT_SET is not set
      s.yaml:11:9 SCENARIO_MISSING_FIELD providers[0].quotas[0]: a requests limit needs a window, e.g. "per: 1m"
      s.yaml:12:42 SCENARIO_INVALID_VALUE providers[0].quotas[1].per: a concurrency limit has no window; remove "per"
      s.yaml:13:53 SCENARIO_UNKNOWN_REFERENCE providers[0].quotas[2].model: model "gpt-5" is not one of provider "openai"'s models (gpt-4o-mini)
      s.yaml:14:39 SCENARIO_UNKNOWN_KEY providers[0].options.colour: unknown option "colour" for vendor openai
      s.yaml:18:31 SCENARIO_DUPLICATE_KEY_VALUE providers[1].keys[0].value: the same credential is also key openai/main; every key must be unique
      s.yaml:20:60 SCENARIO_UNKNOWN_REFERENCE faults[0].match.provider: no provider "nope" (have: openai, gemini)
      s.yaml:21:11 SCENARIO_DUPLICATE_ID faults[1].id: fault id "f" is used twice
      s.yaml:21:75 SCENARIO_UNKNOWN_REFERENCE faults[1].match.model: no model "gpt-4o-mini" in the matched providers
      s.yaml:21:104 SCENARIO_UNSUPPORTED_HINT faults[1].hint.form: gemini (provider "gemini") has no reset headers to carry the wait; use seconds, ms, http-date, body or none
      s.yaml:22:47 SCENARIO_MISSING_FIELD faults[2].hint: a hint needs "after" (the wait to announce) or "raw" (text to send verbatim)"
    `);
  });

  it('says what a duration may be, given .nan, a number past a double, or none', () => {
    expect(
      report(`version: 1
name: nan
providers:
  - id: openai
    vendor: openai
    models: [gpt-4o-mini]
    keys: [{ id: main, value: sk-1 }]
    quotas:
      - { metric: requests, limit: 5, per: .nan }
      - { metric: requests, limit: 5, per: 1e309 }
    latency: { ttft: 30d, errorDelay: .inf }
faults:
  - { id: f, kind: status, status: 429, hint: { after: 1e309 } }
  - { id: g, kind: keep-alive }
  - { id: h, kind: latency, ttft: { dist: uniform, min: 0, max: .nan } }
`),
    ).toMatchInlineSnapshot(`
      "s.yaml:9:44 SCENARIO_INVALID_DURATION providers[0].quotas[0].per: expected a duration such as 250ms, 5s or 1m30s (greater than zero, at most 3650d), got NaN (.nan)
      s.yaml:10:44 SCENARIO_INVALID_DURATION providers[0].quotas[1].per: expected a duration such as 250ms, 5s or 1m30s (greater than zero, at most 3650d), got Infinity (.inf, or a number past the largest a double holds, such as 1e309)
      s.yaml:11:22 SCENARIO_OUT_OF_RANGE providers[0].latency.ttft: expected at most 24d (no timer can wait longer)
      s.yaml:11:39 SCENARIO_INVALID_DURATION providers[0].latency.errorDelay: expected a duration such as 250ms, 5s or 1m30s (zero or more, at most 24d: no timer can wait longer), got Infinity (.inf, or a number past the largest a double holds, such as 1e309)
      s.yaml:13:56 SCENARIO_INVALID_DURATION faults[0].hint.after: expected a duration such as 250ms, 5s or 1m30s (within ±3650d), got Infinity (.inf, or a number past the largest a double holds, such as 1e309)
      s.yaml:14:5 SCENARIO_MISSING_FIELD faults[1].holdFor: required field is missing (expected a duration such as 250ms, 5s or 1m30s (greater than zero, at most 24d: no timer can wait longer))
      s.yaml:15:65 SCENARIO_INVALID_DURATION faults[2].ttft.max: expected a duration such as 250ms, 5s or 1m30s (zero or more, at most 24d: no timer can wait longer), got NaN (.nan)"
    `);
  });

  it('reports YAML syntax errors with their position', () => {
    expect(report('version: 1\nname: [unclosed\n')).toMatch(/^s\.yaml:\d+:\d+ SCENARIO_YAML_SYNTAX \(root\): /);
    expect(report('a: 1\na: 2\n')).toMatch(/SCENARIO_YAML_SYNTAX \(root\): Map keys must be unique/);
  });

  it('reports a missing required field at the map that lacks it', () => {
    expect(report('version: 1\nproviders: []\n')).toMatchInlineSnapshot(`
      "s.yaml:1:1 SCENARIO_MISSING_FIELD name: required field is missing (expected string)
      s.yaml:2:12 SCENARIO_OUT_OF_RANGE providers: Too small: expected array to have >=1 items"
    `);
  });

  it('reads keys from the environment it is given', () => {
    const yaml = `version: 1\nname: env\nproviders:\n  - { id: openai, vendor: openai, models: [m], keys: [{ id: main, env: MY_KEY }] }\n`;
    expect(report(yaml, { MY_KEY: 'sk-from-env' })).toBe('ok');
  });

  it('fills defaults', () => {
    const r = parseScenario(
      `version: 1\nname: d\nproviders:\n  - { id: openai, vendor: openai, models: [m], keys: [{ id: main, value: k }] }\n`,
    );
    expect(r.ok && r.scenario).toMatchObject({
      simulator: { host: '127.0.0.1', port: 0, correlationHeaders: ['x-throttlelab-correlation-id'] },
      faults: [],
    });
  });
});
