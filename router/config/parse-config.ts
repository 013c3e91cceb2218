import type { z } from 'zod';
import { readConfigYaml } from './read-yaml.js';
import { RouterConfigSchema, type RouterConfig } from './schema.js';

/**
 * One problem in a router config, by path. The CLI locates it in the file (line and column) with
 * the project's one YAML locator; a YAML syntax error carries its position already.
 */
export interface ConfigIssue {
  code: string;
  path: Array<string | number>;
  message: string;
  /** Point at this key of the map at `path` rather than at the map. */
  key?: string;
  line?: number;
  col?: number;
}

function codeOf(issue: z.core.$ZodIssue, missing: boolean): string {
  const custom = (issue as { params?: { code?: string } }).params?.code;
  if (custom) return custom;
  if (issue.code === 'invalid_type') return missing ? 'CONFIG_MISSING_FIELD' : 'CONFIG_INVALID_TYPE';
  if (issue.code === 'too_small' || issue.code === 'too_big') return 'CONFIG_OUT_OF_RANGE';
  return 'CONFIG_INVALID_VALUE';
}

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let v = root;
  for (const p of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[p] : undefined;
  return v;
}

/** The outcome of reading a config: the config, or every problem in it. */
export type ParseConfigResult = { ok: true; config: RouterConfig } | { ok: false; issues: ConfigIssue[] };

/** The schema's issues, one per problem (an unknown key each), worded for a config file. */
function schemaIssues(raw: unknown, error: z.ZodError): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const issue of error.issues) {
    const path = issue.path as Array<string | number>;
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        issues.push({ code: 'CONFIG_UNKNOWN_KEY', path, key, message: `unknown key "${key}"` });
      continue;
    }
    const missing = valueAt(raw, path) === undefined;
    issues.push({
      code: codeOf(issue, missing),
      path,
      message:
        missing && issue.code === 'invalid_type'
          ? `required field is missing (expected ${issue.expected})`
          : issue.message.replace(/^Invalid input: /, ''),
    });
  }
  return issues;
}

type Env = Readonly<Record<string, string | undefined>>;
type Push = (code: string, path: Array<string | number>, message: string) => void;

/** Provider and key ids are unique, keys' variables are set, an Azure provider names its API version; returns the targets. */
function checkProviders(config: RouterConfig, env: Env, push: Push): Set<string> {
  const ids = new Set<string>();
  const targets = new Set<string>();
  config.providers.forEach((p, i) => {
    if (ids.has(p.id)) push('CONFIG_DUPLICATE_ID', ['providers', i, 'id'], `provider id "${p.id}" is used twice`);
    ids.add(p.id);
    const keyIds = new Set<string>();
    p.keys.forEach((k, j) => {
      if (keyIds.has(k.id))
        push(
          'CONFIG_DUPLICATE_ID',
          ['providers', i, 'keys', j, 'id'],
          `key id "${k.id}" is used twice in provider "${p.id}"`,
        );
      keyIds.add(k.id);
      if (!env[k.env])
        push('CONFIG_MISSING_ENV', ['providers', i, 'keys', j, 'env'], `environment variable ${k.env} is not set`);
    });
    if (p.vendor === 'azure-openai' && !p.apiVersion)
      push('CONFIG_MISSING_FIELD', ['providers', i], 'an azure-openai provider needs apiVersion');
    for (const m of p.models) targets.add(`${p.id}/${m.name}`);
  });
  return targets;
}

/** A Redis store names its URL once, inline or through a variable that is set and holds a Redis URL. */
function checkStore(config: RouterConfig, env: Env, push: Push): void {
  if (config.store.kind !== 'redis') return;
  const { url, env: name } = config.store;
  if (url !== undefined && name !== undefined)
    push('CONFIG_INVALID_VALUE', ['store'], 'give "url" or "env" (the variable holding the URL), not both');
  else if (url === undefined && !env[name ?? 'REDIS_URL'])
    push(
      'CONFIG_MISSING_ENV',
      name !== undefined ? ['store', 'env'] : ['store'],
      `environment variable ${name ?? 'REDIS_URL'} is not set (it holds the Redis URL; or give "url")`,
    );
  else if (url === undefined && !/^rediss?:\/\//.test(env[name ?? 'REDIS_URL']!))
    push(
      'CONFIG_INVALID_VALUE',
      name !== undefined ? ['store', 'env'] : ['store'],
      `environment variable ${name ?? 'REDIS_URL'} does not hold a redis:// or rediss:// URL`,
    );
}

/** What the schema cannot see: ids unique, aliases naming configured targets, variables set. */
function crossReferenceIssues(config: RouterConfig, env: Env): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const push: Push = (code, path, message) => issues.push({ code, path, message });
  const targets = checkProviders(config, env, push);
  for (const [alias, list] of Object.entries(config.aliases)) {
    if (alias === config.autoModel)
      push('CONFIG_INVALID_VALUE', ['aliases', alias], `alias "${alias}" hides the auto model name`);
    list.forEach((t, i) => {
      if (!targets.has(t)) push('CONFIG_UNKNOWN_REFERENCE', ['aliases', alias, i], `no configured target "${t}"`);
    });
  }
  checkStore(config, env, push);
  config.server.authTokens.forEach((t, i) => {
    if (!env[t.env])
      push('CONFIG_MISSING_ENV', ['server', 'authTokens', i, 'env'], `environment variable ${t.env} is not set`);
  });
  return issues;
}

/**
 * Parses and validates a router config, reporting every problem at once with its position:
 * YAML syntax, then the schema, then cross-references (aliases name configured targets, ids are
 * unique, keys' environment variables are set).
 */
export function parseRouterConfig(text: string, env: Env): ParseConfigResult {
  const read = readConfigYaml(text);
  if (!read.ok)
    return {
      ok: false,
      issues: read.problems.map((p) => ({ code: p.code, path: [], message: p.message, line: p.line, col: p.col })),
    };
  const parsed = RouterConfigSchema.safeParse(read.value);
  if (!parsed.success) return { ok: false, issues: schemaIssues(read.value, parsed.error) };
  const issues = crossReferenceIssues(parsed.data, env);
  return issues.length > 0 ? { ok: false, issues } : { ok: true, config: parsed.data };
}
