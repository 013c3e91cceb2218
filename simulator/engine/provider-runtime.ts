import { formatDurationShort } from '../core/duration.js';
import type { Algorithm } from '../quota/meter.js';
import { QuotaSet, type QuotaRule } from '../quota/quota-set.js';
import { createWindowStart } from '../quota/window-start.js';
import type { Dist, ProviderSpec } from '../scenario/schema.js';
import { VENDORS } from '../vendors/registry.js';
import { PromptCache } from './prompt-cache.js';
import type { ApiKind, VendorDefaults, VendorProfile } from '../vendors/types.js';

/** A provider ready to serve: its vendor profile, live quotas and resolved settings. */
export interface ProviderRuntime {
  index: number;
  id: string;
  spec: ProviderSpec;
  profile: VendorProfile;
  /** The vendor's other APIs, each as the profile with that API's bodies. */
  apis: ReadonlyMap<ApiKind, VendorProfile>;
  models: ReadonlySet<string>;
  quota: QuotaSet;
  /** Prompt prefixes cached per organisation and model. */
  cache: PromptCache;
  accounting: Pick<VendorDefaults, 'tokenAdmission' | 'chargeOutputToTokens' | 'countRejected'>;
  latency: {
    ttft?: Dist;
    tokensPerSecond?: Dist;
    completionTokens: Dist;
    tokensPerFrame: number;
    errorDelayMs: number;
  };
  options: Record<string, unknown>;
}

const DAY_MS = 86_400_000;

/** Turns a provider's quotas into rules, filling the vendor's defaults. */
export function compileRules(spec: ProviderSpec, profile: VendorProfile): QuotaRule[] {
  return spec.quotas.map((q) => {
    const windowMs = q.per ?? 0;
    const algorithm: Algorithm = q.algorithm ?? profile.defaults.algorithm[q.metric] ?? 'token-bucket';
    const timeZone = q.timeZone ?? (windowMs >= DAY_MS ? profile.defaults.dayWindowTimeZone : undefined);
    return {
      id: q.metric === 'concurrency' ? 'concurrency' : `${q.metric}/${formatDurationShort(windowMs)}`,
      metric: q.metric,
      limit: q.limit,
      windowMs,
      algorithm,
      scope: q.scope ?? 'org',
      model: q.model,
      sharedModels: q.sharedAcrossModels ?? false,
      windowStart: algorithm === 'fixed-window' && windowMs > 0 ? createWindowStart(windowMs, timeZone) : undefined,
    };
  });
}

/** Builds the runtime of provider number `index`. */
export function createProviderRuntime(spec: ProviderSpec, index: number): ProviderRuntime {
  const profile = VENDORS[spec.vendor as keyof typeof VENDORS];
  const d = profile.defaults;
  return {
    index,
    id: spec.id,
    spec,
    profile,
    apis: new Map(
      Object.entries(profile.apis ?? {}).map(([api, surface]) => [api as ApiKind, { ...profile, ...surface }]),
    ),
    models: new Set(spec.models),
    quota: new QuotaSet(compileRules(spec, profile)),
    cache: new PromptCache(),
    accounting: {
      tokenAdmission: spec.accounting.tokenAdmission ?? d.tokenAdmission,
      chargeOutputToTokens: spec.accounting.chargeOutputToTokens ?? d.chargeOutputToTokens,
      countRejected: spec.accounting.countRejected ?? d.countRejected,
    },
    latency: {
      ttft: spec.latency.ttft,
      tokensPerSecond: spec.latency.tokensPerSecond,
      completionTokens: spec.latency.completionTokens ?? { dist: 'uniform', min: 16, max: 64 },
      tokensPerFrame: spec.latency.tokensPerFrame ?? d.tokensPerFrame,
      errorDelayMs: spec.latency.errorDelay ?? 0,
    },
    options: spec.options,
  };
}
