import { z } from 'zod';
import { isKnownTimeZone } from '../quota/window-start.js';
import type { Scenario } from './schema.js';
import { VENDORS } from '../vendors/registry.js';
import type { VendorId } from '../vendors/types.js';
import { COMMON_OPTIONS, VENDOR_OPTIONS } from './vendor-options.js';

/** An issue found by a rule, before it is located. */
export interface RuleIssue {
  code: string;
  path: Array<string | number>;
  message: string;
  /** Point at this key of the map at `path` rather than at the map. */
  key?: string;
}

/** What rules can see besides the scenario. */
export interface RuleContext {
  env: Readonly<Record<string, string | undefined>>;
}

/** A named cross-field check over a validated scenario; pushes every issue it finds. */
export type Rule<S = Scenario> = (scenario: S, ctx: RuleContext, push: (issue: RuleIssue) => void) => void;

const uniqueIds: Rule = (s, _ctx, push) => {
  const seen = new Set<string>();
  s.providers.forEach((p, i) => {
    if (seen.has(p.id))
      push({
        code: 'SCENARIO_DUPLICATE_ID',
        path: ['providers', i, 'id'],
        message: `provider id "${p.id}" is used twice`,
      });
    seen.add(p.id);
    const keys = new Set<string>();
    p.keys.forEach((k, j) => {
      if (keys.has(k.id))
        push({
          code: 'SCENARIO_DUPLICATE_ID',
          path: ['providers', i, 'keys', j, 'id'],
          message: `key id "${k.id}" is used twice in provider "${p.id}"`,
        });
      keys.add(k.id);
    });
  });
  const faults = new Set<string>();
  s.faults.forEach((f, i) => {
    if (faults.has(f.id))
      push({ code: 'SCENARIO_DUPLICATE_ID', path: ['faults', i, 'id'], message: `fault id "${f.id}" is used twice` });
    faults.add(f.id);
  });
};

// A credential must identify exactly one provider, or "carried another provider's key" means nothing.
const keyValues: Rule = (s, ctx, push) => {
  const owners = new Map<string, string>();
  s.providers.forEach((p, i) =>
    p.keys.forEach((k, j) => {
      const path = ['providers', i, 'keys', j];
      if ((k.value === undefined) === (k.env === undefined)) {
        push({
          code: 'SCENARIO_KEY_SOURCE',
          path,
          message: 'give exactly one of "value" (a simulated key) or "env" (a variable holding it)',
        });
        return;
      }
      const value = k.value ?? ctx.env[k.env!];
      if (k.env !== undefined && (value === undefined || value === '')) {
        push({
          code: 'SCENARIO_MISSING_ENV',
          path: [...path, 'env'],
          message: `environment variable ${k.env} is not set`,
        });
        return;
      }
      const owner = owners.get(value!);
      if (owner !== undefined)
        push({
          code: 'SCENARIO_DUPLICATE_KEY_VALUE',
          path: [...path, k.value !== undefined ? 'value' : 'env'],
          message: `the same credential is also key ${owner}; every key must be unique`,
        });
      else owners.set(value!, `${p.id}/${k.id}`);
    }),
  );
};

const quotas: Rule = (s, _ctx, push) => {
  s.providers.forEach((p, i) =>
    p.quotas.forEach((q, j) => {
      const path = ['providers', i, 'quotas', j];
      if (q.metric === 'concurrency') {
        if (q.per !== undefined)
          push({
            code: 'SCENARIO_INVALID_VALUE',
            path,
            key: 'per',
            message: 'a concurrency limit has no window; remove "per"',
          });
        if (q.algorithm !== undefined)
          push({
            code: 'SCENARIO_INVALID_VALUE',
            path,
            key: 'algorithm',
            message: 'a concurrency limit has no algorithm; remove "algorithm"',
          });
      } else if (q.per === undefined) {
        push({ code: 'SCENARIO_MISSING_FIELD', path, message: `a ${q.metric} limit needs a window, e.g. "per: 1m"` });
      }
      if (q.model !== undefined && !p.models.includes(q.model)) {
        push({
          code: 'SCENARIO_UNKNOWN_REFERENCE',
          path: [...path, 'model'],
          message: `model "${q.model}" is not one of provider "${p.id}"'s models (${p.models.join(', ')})`,
        });
      }
      if (q.timeZone !== undefined) {
        const algorithm = q.algorithm ?? 'fixed-window';
        if (algorithm !== 'fixed-window')
          push({
            code: 'SCENARIO_INVALID_VALUE',
            path,
            key: 'timeZone',
            message: 'timeZone only applies to fixed-window limits',
          });
        else if (!isKnownTimeZone(q.timeZone))
          push({
            code: 'SCENARIO_INVALID_VALUE',
            path: [...path, 'timeZone'],
            message: `unknown time zone "${q.timeZone}"; use an IANA name such as America/Los_Angeles`,
          });
      }
    }),
  );
};

const vendorOptions: Rule = (s, _ctx, push) => {
  s.providers.forEach((p, i) => {
    // The options every vendor takes, then the vendor's own.
    const common = Object.fromEntries(Object.entries(p.options).filter(([k]) => k in COMMON_OPTIONS));
    const own = Object.fromEntries(Object.entries(p.options).filter(([k]) => !(k in COMMON_OPTIONS)));
    const shared = z.strictObject(COMMON_OPTIONS).safeParse(common);
    const result = shared.success ? VENDOR_OPTIONS[p.vendor as keyof typeof VENDOR_OPTIONS].safeParse(own) : shared;
    if (result.success) return;
    for (const issue of result.error.issues) {
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys)
          push({
            code: 'SCENARIO_UNKNOWN_KEY',
            path: ['providers', i, 'options', ...(issue.path as Array<string | number>)],
            key,
            message: `unknown option "${key}" for vendor ${p.vendor}`,
          });
      } else {
        push({
          code: 'SCENARIO_INVALID_VALUE',
          path: ['providers', i, 'options', ...(issue.path as Array<string | number>)],
          message: issue.message,
        });
      }
    }
  });
};

const latency: Rule = (s, _ctx, push) => {
  s.providers.forEach((p, i) => {
    for (const field of ['ttft', 'tokensPerSecond', 'completionTokens'] as const) {
      const d = p.latency[field];
      if (d?.dist === 'uniform' && d.min > d.max)
        push({
          code: 'SCENARIO_INVALID_VALUE',
          path: ['providers', i, 'latency', field],
          message: `min (${d.min}) is greater than max (${d.max})`,
        });
      if (d?.dist === 'lognormal' && d.p99 < d.median)
        push({
          code: 'SCENARIO_INVALID_VALUE',
          path: ['providers', i, 'latency', field],
          message: `p99 (${d.p99}) is below the median (${d.median})`,
        });
    }
    const tps = p.latency.tokensPerSecond;
    if (tps?.dist === 'fixed' && tps.value === 0)
      push({
        code: 'SCENARIO_OUT_OF_RANGE',
        path: ['providers', i, 'latency', 'tokensPerSecond'],
        message: 'tokens per second must be greater than zero',
      });
  });
};

// The hint forms a vendor can carry, for messages that refuse one.
function alternatives(vendor: string): string {
  const v = VENDORS[vendor as VendorId];
  const forms = [
    'seconds',
    'ms',
    'http-date',
    ...(v.resetHeaders === false ? [] : ['reset-header']),
    ...(v.bodyHints === false ? [] : ['body']),
  ];
  return `${forms.join(', ')} or none`;
}

const faultRefs: Rule = (s, _ctx, push) => {
  const byId = new Map(s.providers.map((p) => [p.id, p]));
  s.faults.forEach((f, i) => {
    const path = ['faults', i, 'match'];
    const providers = f.match.provider ?? s.providers.map((p) => p.id);
    f.match.provider?.forEach((id, j) => {
      if (!byId.has(id))
        push({
          code: 'SCENARIO_UNKNOWN_REFERENCE',
          path: [...path, 'provider', ...(f.match.provider!.length > 1 ? [j] : [])],
          message: `no provider "${id}" (have: ${[...byId.keys()].join(', ')})`,
        });
    });
    const known = providers.map((id) => byId.get(id)).filter((p) => p !== undefined);
    f.match.key?.forEach((id, j) => {
      if (!known.some((p) => p.keys.some((k) => k.id === id)))
        push({
          code: 'SCENARIO_UNKNOWN_REFERENCE',
          path: [...path, 'key', ...(f.match.key!.length > 1 ? [j] : [])],
          message: `no key "${id}" in the matched providers`,
        });
    });
    f.match.model?.forEach((m, j) => {
      if (!known.some((p) => p.models.includes(m)))
        push({
          code: 'SCENARIO_UNKNOWN_REFERENCE',
          path: [...path, 'model', ...(f.match.model!.length > 1 ? [j] : [])],
          message: `no model "${m}" in the matched providers`,
        });
    });
    if (f.kind === 'status' && f.hint) {
      for (const p of known) {
        if (f.hint.form === 'reset-header' && VENDORS[p.vendor as VendorId].resetHeaders === false) {
          push({
            code: 'SCENARIO_UNSUPPORTED_HINT',
            path: ['faults', i, 'hint', 'form'],
            message: `${p.vendor} (provider "${p.id}") has no reset headers to carry the wait; use ${alternatives(p.vendor)}`,
          });
        }
        // RFC 9457 problem details with the draft's problem types have no member for a wait.
        if (f.hint.form === 'body' && VENDORS[p.vendor as VendorId].bodyHints === false) {
          push({
            code: 'SCENARIO_UNSUPPORTED_HINT',
            path: ['faults', i, 'hint', 'form'],
            message: `${p.vendor} (provider "${p.id}") has no body field to carry the wait; use ${alternatives(p.vendor)}`,
          });
        }
      }
      if (f.hint.form !== 'none' && f.hint.after === undefined && f.hint.raw === undefined) {
        push({
          code: 'SCENARIO_MISSING_FIELD',
          path: ['faults', i, 'hint'],
          message: 'a hint needs "after" (the wait to announce) or "raw" (text to send verbatim)',
        });
      }
    }
    if (f.kind === 'stream-break' && f.match.stream === false) {
      push({
        code: 'SCENARIO_INVALID_VALUE',
        path: [...path, 'stream'],
        message: 'a stream-break fault only applies to streaming requests',
      });
    }
  });
};

/** The cross-field rules: references exist, credentials are unambiguous, options fit the vendor. */
export const RULES: readonly Rule[] = [uniqueIds, keyValues, quotas, vendorOptions, latency, faultRefs];
