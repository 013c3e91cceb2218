import type { z } from 'zod';
import type { ScenarioIssue } from './issue.js';
import { locate } from './locate.js';
import { readYaml } from './read-yaml.js';
import { RULES, type Rule, type RuleContext } from './rules.js';
import { ScenarioSchema, type Scenario } from './schema.js';

/** The outcome of reading a scenario: the scenario, or every problem in it. */
export type ParseScenarioResult<S = Scenario> = { ok: true; scenario: S } | { ok: false; issues: ScenarioIssue[] };

/** Parses scenario text into `S`, reporting every problem located. */
export type ScenarioParser<S> = (text: string, ctx?: RuleContext) => ParseScenarioResult<S>;

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
  if (issue.code === 'invalid_type' && input === undefined)
    // A schema's own message (a duration's: what is allowed) says more than zod's type name.
    return issue.message.startsWith('Invalid input')
      ? `required field is missing (expected ${issue.expected})`
      : `required field is missing (${issue.message})`;
  if (issue.code === 'invalid_union' && 'note' in issue && issue.note === 'No matching discriminator')
    return issue.message;
  return issue.message.replace(/^Invalid input: /, '');
}

/**
 * Replaces a union's "Invalid input" by the problems of the branch the value was meant for: the
 * one that failed on something other than the value's type or its tag (a distribution given as
 * `1e12` is a number out of range, not "not an object").
 */
export function expandUnions(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  const out: z.core.$ZodIssue[] = [];
  for (const issue of issues) {
    if (issue.code !== 'invalid_union' || !('errors' in issue) || issue.errors.length === 0) {
      out.push(issue);
      continue;
    }
    const meant = issue.errors.filter(
      (branch) =>
        !branch.every((i) => i.code === 'invalid_type' && i.path.length === 0) &&
        // A branch whose own literal tag differs (`dist: fixed` given `dist: uniform`) is another's.
        !branch.some((i) => i.code === 'invalid_value' && i.path.length === 1 && i.values.length === 1),
    );
    if (meant.length !== 1) {
      out.push(issue);
      continue;
    }
    for (const inner of expandUnions(meant[0]!)) out.push({ ...inner, path: [...issue.path, ...inner.path] });
  }
  return out;
}

/**
 * Builds a scenario parser for a schema and its rules: YAML syntax first, then the schema, then
 * the cross-field rules, every problem located by line and column. The simulator's parser reads
 * the world; the harness builds one over the world plus its run sections.
 */
export function createScenarioParser<S>(
  schema: z.ZodType<S, unknown>,
  rules: ReadonlyArray<Rule<S>>,
): ScenarioParser<S> {
  return (text, ctx = { env: {} }) => {
    const read = readYaml(text);
    if (!read.ok) return read;
    const { doc, lc, value: raw } = read;
    const parsed = schema.safeParse(raw);
    const issues: ScenarioIssue[] = [];
    if (!parsed.success) {
      for (const issue of expandUnions(parsed.error.issues)) {
        const path = issue.path as Array<string | number>;
        if (issue.code === 'unrecognized_keys') {
          for (const key of issue.keys)
            issues.push({
              code: 'SCENARIO_UNKNOWN_KEY',
              path: [...path, key],
              message: `unknown key "${key}"`,
              ...locate(doc, lc, path, key),
            });
          continue;
        }
        const input = valueAt(raw, path);
        issues.push({
          code: issueCode(issue, input),
          path,
          message: messageOf(issue, input),
          ...locate(doc, lc, path),
        });
      }
      return { ok: false, issues };
    }
    for (const rule of rules) {
      rule(parsed.data, ctx, (i) =>
        issues.push({
          code: i.code,
          path: i.key ? [...i.path, i.key] : i.path,
          message: i.message,
          ...locate(doc, lc, i.path, i.key),
        }),
      );
    }
    return issues.length > 0 ? { ok: false, issues } : { ok: true, scenario: parsed.data };
  };
}

/** Parses and validates the simulated world of a scenario (see `createScenarioParser`). */
export const parseScenario: ScenarioParser<Scenario> = createScenarioParser(
  ScenarioSchema as z.ZodType<Scenario, unknown>,
  RULES,
);
