import { LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import type { ScenarioIssue } from './issue.js';
import { locate } from './locate.js';
import { RULES, type RuleContext } from './rules.js';
import { ScenarioSchema, type Scenario } from './schema.js';

/** The outcome of reading a scenario: the scenario, or every problem in it. */
export type ParseScenarioResult = { ok: true; scenario: Scenario } | { ok: false; issues: ScenarioIssue[] };

function issueCode(issue: z.core.$ZodIssue, input: unknown): string {
  const custom = (issue as { params?: { code?: string } }).params?.code;
  if (custom) return custom;
  switch (issue.code) {
    case 'invalid_type':
      return input === undefined ? 'SCENARIO_MISSING_FIELD' : 'SCENARIO_INVALID_TYPE';
    case 'unrecognized_keys':
      return 'SCENARIO_UNKNOWN_KEY';
    case 'too_small':
    case 'too_big':
      return 'SCENARIO_OUT_OF_RANGE';
    default:
      return 'SCENARIO_INVALID_VALUE';
  }
}

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let node = root;
  for (const part of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[part];
  }
  return node;
}

function messageOf(issue: z.core.$ZodIssue, input: unknown): string {
  if (issue.code === 'invalid_type' && input === undefined) return `required field is missing (expected ${issue.expected})`;
  if (issue.code === 'invalid_union' && 'note' in issue && issue.note === 'No matching discriminator') return issue.message;
  return issue.message.replace(/^Invalid input: /, '');
}

/**
 * Parses and validates scenario YAML, reporting every problem at once with its line and column:
 * YAML syntax first, then the schema, then the cross-field rules.
 */
export function parseScenario(text: string, ctx: RuleContext = { env: {} }): ParseScenarioResult {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      issues: doc.errors.map((e) => {
        const pos = e.linePos?.[0] ?? { line: 1, col: 1 };
        return { code: 'SCENARIO_YAML_SYNTAX', path: [], message: e.message.split('\n')[0]!, line: pos.line, col: pos.col };
      }),
    };
  }
  const raw = doc.toJS();
  const parsed = ScenarioSchema.safeParse(raw);
  const issues: ScenarioIssue[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issue.path as Array<string | number>;
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) issues.push({ code: 'SCENARIO_UNKNOWN_KEY', path: [...path, key], message: `unknown key "${key}"`, ...locate(doc, lc, path, key) });
        continue;
      }
      const input = valueAt(raw, path);
      issues.push({ code: issueCode(issue, input), path, message: messageOf(issue, input), ...locate(doc, lc, path) });
    }
    return { ok: false, issues };
  }
  for (const rule of RULES) {
    rule(parsed.data, ctx, (i) => issues.push({ code: i.code, path: i.key ? [...i.path, i.key] : i.path, message: i.message, ...locate(doc, lc, i.path, i.key) }));
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, scenario: parsed.data };
}
