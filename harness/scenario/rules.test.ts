import { describe, expect, it } from 'vitest';
import { formatIssues } from '../../simulator/index.js';
import { parseRunScenario } from './parse-run-scenario.js';

const scenario = (load: string, faults = '[]') => `version: 1
name: rules
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-1 }] }
faults: ${faults}
load:
  rate: 10
  duration: 5s
${load}`;

const issues = (text: string) => {
  const r = parseRunScenario(text);
  if (r.ok) throw new Error('expected the scenario to be refused');
  return formatIssues('s.yaml', r.issues);
};

describe('run scenario rules', () => {
  it('refuses a header value a client cannot send (a YAML ">-" block keeping line breaks), located', () => {
    const text = scenario(`  headers:
    x-portkey-config: >-
      {"strategy": {"mode": "fallback"},

        "targets": []}
`);
    expect(issues(text)).toBe(
      's.yaml:10:23 SCENARIO_INVALID_VALUE load.headers.x-portkey-config: a header value cannot contain a line break: write it on one line (a YAML ">-" block keeps the line breaks of blank and more-indented lines)',
    );
  });

  it('refuses header names that are not tokens and control characters in values, and accepts Latin-1', () => {
    const text = scenario(`  headers: { "bad name": ok, x-bell: "a\\u0007b", x-ok: "café" }`);
    const out = issues(text);
    expect(out).toContain(
      's.yaml:9:14 SCENARIO_INVALID_VALUE load.headers.bad name: "bad name" is not a header name that can be sent',
    );
    expect(out).toContain('load.headers.x-bell: a header value cannot contain the control character 0x07');
    expect(out).not.toContain('x-ok');
  });

  it('refuses a fault that starts after the load ends, unless it is optional', () => {
    const late = `[{ id: late, kind: status, status: 500, at: 8s }]`;
    expect(issues(scenario('', late))).toMatch(
      /^s\.yaml:5:\d+ SCENARIO_OUT_OF_RANGE faults\[0\]\.at: fault "late" starts at 8000 ms, when the load \(5000 ms\) has ended: it can match no attempt \(fault times count from the load's start\); move it, or mark it "optional: true"$/,
    );
    const r = parseRunScenario(scenario('', `[{ id: late, kind: status, status: 500, at: 8s, optional: true }]`));
    expect(r.ok).toBe(true);
  });
});
