import type { ProviderAdapter } from '../adapters/adapter.js';
import { ADAPTERS } from '../adapters/registry.js';
import type { ProviderConfig, RouterConfig } from '../config/schema.js';
import type { CapacityBook } from '../core/capacity.js';
import { Ewma } from '../core/ewma.js';
import type { CandidateFacts } from '../core/scoring.js';
import type { Target } from '../core/types.js';

/** A target ready to call: its provider, key, model, adapter and running statistics. */
export interface TargetRuntime extends Target {
  providerConfig: ProviderConfig;
  modelConfig: ProviderConfig['models'][number];
  /** This key's value, read from the environment; only ever sent to this provider. */
  apiKey: string;
  adapter: ProviderAdapter;
  /**
   * Circuit scopes: the provider (overload, failures), the key (rejected keys, spent quotas) and
   * the key's model (rate limits, which vendors count per model).
   */
  providerScope: string;
  keyScope: string;
  limitScope: string;
  /** The model's limit shared by the keys of the key's `org` (none without one): an organisation's rate limit closes it. */
  orgLimitScope: string | undefined;
  /** All of them, in the order a request passes them. */
  scopes: readonly string[];
  ttft: Ewma;
  latency: Ewma;
  /** A target the provider said does not exist (404) stays out until then. */
  disabledUntil: number;
  /** When an attempt to it last ended (undefined: never), for exploring. */
  measuredAt: number | undefined;
}

/** Every target of a config, and the targets each requestable model name stands for. */
export interface TargetSet {
  targets: TargetRuntime[];
  /** `provider/model` and the bare model name, each to the targets that serve it. */
  byModel: Map<string, TargetRuntime[]>;
}

/** Builds one target per provider, key and model, reading each key's value from `env`. */
export function buildTargets(config: RouterConfig, env: Readonly<Record<string, string | undefined>>): TargetSet {
  const targets: TargetRuntime[] = [];
  const byModel = new Map<string, TargetRuntime[]>();
  for (const p of config.providers) {
    for (const k of p.keys) {
      const apiKey = env[k.env] ?? '';
      for (const m of p.models) {
        const providerScope = `provider:${p.id}`;
        const keyScope = `key:${p.id}/${k.id}`;
        const limitScope = `limit:${p.id}/${k.id}/${m.name}`;
        const orgLimitScope = k.org === undefined ? undefined : `org-limit:${p.id}/${k.org}/${m.name}`;
        const t: TargetRuntime = {
          id: `${p.id}/${k.id}/${m.name}`,
          provider: p.id,
          key: k.id,
          model: m.name,
          providerConfig: p,
          modelConfig: m,
          apiKey,
          adapter: ADAPTERS[p.vendor],
          providerScope,
          keyScope,
          limitScope,
          orgLimitScope,
          scopes: orgLimitScope
            ? [providerScope, keyScope, orgLimitScope, limitScope]
            : [providerScope, keyScope, limitScope],
          ttft: new Ewma(20),
          latency: new Ewma(20),
          disabledUntil: 0,
          measuredAt: undefined,
        };
        targets.push(t);
        for (const name of [`${p.id}/${m.name}`, m.name]) {
          const list = byModel.get(name) ?? [];
          list.push(t);
          byModel.set(name, list);
        }
      }
    }
  }
  return { targets, byModel };
}

/** A target as the scorer sees it for one request: expected cost, speed, reliability, quality and headroom. */
export function candidateOf(
  t: TargetRuntime,
  inputTokens: number,
  expectedOutputTokens: number,
  reliability: Ewma,
  capacity: CapacityBook,
  now: number,
): CandidateFacts {
  const costUsd =
    (inputTokens * t.modelConfig.inputCostPerMTok + expectedOutputTokens * t.modelConfig.outputCostPerMTok) / 1e6;
  return {
    target: t.id,
    costUsd,
    ttftMs: t.ttft.get(500),
    latencyMs: t.latency.get(1000),
    reliability: reliability.get(1),
    quality: t.modelConfig.quality,
    headroom: capacity.headroom(t.id, now),
  };
}
