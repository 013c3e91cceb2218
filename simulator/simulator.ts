import type { Clock } from './core/clock.js';
import { systemClock } from './transports/system-clock.js';
import { Engine } from './engine/engine.js';
import type { Reply } from './engine/reply.js';
import { serveShared } from './engine/serve-shared.js';
import type { SharedQuota } from './quota/shared-quota.js';
import type { Ledger } from './ledger/ledger.js';
import type { LimitView } from './quota/quota-set.js';
import { FaultSchema, type FaultSpec, type Scenario } from './scenario/schema.js';
import { faultIssues, patchFault } from './patch-fault.js';
import type { FaultOp } from './shared-faults/fault-channel.js';
import type { SharedFaultEntry } from './shared-faults/shared-fault-entry.js';
import type { SimRequest, VendorId } from './vendors/types.js';

/** Where one simulated provider listens and what an SDK needs to reach it. */
export interface ProviderEndpoint {
  id: string;
  vendor: VendorId;
  title: string;
  /** The provider's root: `<origin>/<id>`. */
  root: string;
  /** What an SDK takes as its base URL. */
  baseUrl: string;
  models: string[];
  /** `value` is the simulated key, or `$NAME` for a key read from the environment. */
  keys: Array<{ id: string; org: string; value: string; env: Array<[string, string]> }>;
}

/** A fault on the timeline, as the control API shows it. */
export interface FaultInfo {
  id: string;
  kind: string;
  origin: 'scenario' | 'live';
  startAt: number;
  endAt: number | null;
  active: boolean;
  /** False: on the timeline but switched off (`fault disable`). */
  enabled: boolean;
  seen: number;
  applied: number;
  spec: FaultSpec;
}

/** A fault as a change places it: its spec, whether it is on, and its start (epoch ms). */
export type PlacedFault = Exclude<SharedFaultEntry, { removed: true }>;

/** Options for `createSimulator`. */
export interface SimulatorOptions {
  /** Overrides the scenario's seed. */
  seed?: number;
  clock?: Clock;
  /** Environment for keys given as `env:`; only `bin/` passes the real one. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Quotas shared with other workers (through Redis); by default each simulator keeps its own. */
  sharedQuota?: SharedQuota;
}

/** A running set of simulated providers, independent of transport. */
export interface Simulator {
  readonly scenario: Scenario;
  readonly seed: number;
  readonly clock: Clock;
  readonly startedAt: number;
  readonly ledger: Ledger;
  /** Answers one request; `arrivalAt` defaults to now. */
  handle(req: SimRequest, options?: { arrivalAt?: number; bodyTooLarge?: boolean }): Reply;
  /** Answers one request as `handle` does, waiting for the shared quota's decision when there is one. */
  serve(req: SimRequest, options?: { arrivalAt?: number; bodyTooLarge?: boolean }): Reply | Promise<Reply>;
  /** Validates and schedules a fault, its `at` counted from now; problems come back as messages. */
  addFault(input: unknown): { ok: true; fault: FaultInfo } | { ok: false; issues: string[] };
  removeFault(id: string): boolean;
  /**
   * Changes a fault on the timeline (fields as in a scenario, plus `enabled`; see `patchFault`):
   * undefined when there is no such fault.
   */
  updateFault(id: string, patch: unknown): { ok: true; fault: FaultInfo } | { ok: false; issues: string[] } | undefined;
  /**
   * Counts the scenario's fault times from `originAt` instead of the simulator's start: a run
   * calls it when its load starts, so a router that is slow to start meets every fault.
   */
  startFaultsAt(originAt: number): void;
  listFaults(): FaultInfo[];
  /** Validates a new fault as `addFault` does and returns what it would share, without applying it. */
  planFault(input: unknown): { ok: true; entry: PlacedFault } | { ok: false; issues: string[] };
  /** Validates a change as `updateFault` does and returns what it would share; undefined when there is no such fault. */
  planFaultUpdate(
    id: string,
    patch: unknown,
  ): { ok: true; entry: PlacedFault } | { ok: false; issues: string[] } | undefined;
  /**
   * Applies a fault change shared by a group's worker (read from Redis, already validated): issues
   * come back when it names a provider or model this scenario does not have.
   */
  applyFaultEntry(op: FaultOp, id: string, entry: SharedFaultEntry): { ok: true } | { ok: false; issues: string[] };
  /** Every quota bucket in use, per provider. */
  quota(): Record<string, Array<{ bucket: string; rule: string; limit: number; remaining: number; resetInMs: number }>>;
  /** Provider endpoints under `origin` (e.g. `http://127.0.0.1:4000`). */
  endpoints(origin: string): ProviderEndpoint[];
}

function resolveKeys(scenario: Scenario, env: Readonly<Record<string, string | undefined>>): Map<string, string> {
  const values = new Map<string, string>();
  for (const p of scenario.providers) {
    for (const k of p.keys) {
      const value = k.value ?? (k.env !== undefined ? env[k.env] : undefined);
      if (value) values.set(`${p.id}/${k.id}`, value);
    }
  }
  return values;
}

/** Creates the simulated providers of a validated scenario. */
export function createSimulator(scenario: Scenario, options: SimulatorOptions = {}): Simulator {
  const clock = options.clock ?? systemClock;
  const seed = options.seed ?? scenario.seed ?? 1;
  const startedAt = clock.now();
  const shared = options.sharedQuota;
  const engine = new Engine(scenario, { seed, keyValues: resolveKeys(scenario, options.env ?? {}), startedAt });

  // Selectors naming a provider or model the scenario does not have would match nothing, silently.
  const unknownTargets = (spec: FaultSpec): string[] => [
    ...(spec.match.provider ?? [])
      .filter((id) => !engine.byId.has(id))
      .map((id) => `match.provider: no provider "${id}"`),
    ...(spec.match.model ?? [])
      .filter((m) => !engine.providers.some((p) => p.models.has(m)))
      .map((m) => `match.model: no model "${m}"`),
  ];

  const info = (f: ReturnType<typeof engine.faults.list>[number]): FaultInfo => {
    const now = clock.now();
    return {
      id: f.spec.id,
      kind: f.spec.kind,
      origin: f.origin,
      startAt: f.startAt,
      endAt: Number.isFinite(f.endAt) ? f.endAt : null,
      active: f.enabled && now >= f.startAt && now < f.endAt,
      enabled: f.enabled,
      seen: f.seen,
      applied: f.applied,
      spec: f.spec,
    };
  };

  const planFault: Simulator['planFault'] = (input) => {
    const parsed = FaultSchema.safeParse(input);
    if (!parsed.success) return { ok: false, issues: faultIssues(parsed.error) };
    const spec = parsed.data;
    const missing = unknownTargets(spec);
    if (missing.length > 0) return { ok: false, issues: missing };
    return { ok: true, entry: { spec, enabled: true, startAt: clock.now() + spec.at } };
  };
  const planFaultUpdate: Simulator['planFaultUpdate'] = (id, patch) => {
    const current = engine.faults.list().find((f) => f.spec.id === id);
    if (!current) return undefined;
    const planned = patchFault(current, patch, clock.now());
    if (!planned.ok) return planned;
    const missing = unknownTargets(planned.spec);
    if (missing.length > 0) return { ok: false, issues: missing };
    return {
      ok: true,
      entry: {
        spec: planned.spec,
        enabled: planned.enabled ?? current.enabled,
        startAt: planned.window?.startAt ?? current.startAt,
      },
    };
  };
  const applyFaultEntry: Simulator['applyFaultEntry'] = (op, id, entry) => {
    if ('removed' in entry) {
      engine.faults.remove(id);
      return { ok: true };
    }
    const missing = unknownTargets(entry.spec);
    if (missing.length > 0) return { ok: false, issues: missing };
    const { spec, startAt } = entry;
    const window = { startAt, endAt: spec.for === undefined ? Infinity : startAt + spec.for };
    if (op === 'add' || !engine.faults.update(id, spec, window)) {
      engine.faults.remove(id);
      Object.assign(engine.faults.add(spec, startAt, 'live'), window);
    }
    engine.faults.setEnabled(id, entry.enabled);
    return { ok: true };
  };
  return {
    scenario,
    seed,
    clock,
    startedAt,
    ledger: engine.ledger,
    handle: (req, o = {}) => engine.handle(req, o.arrivalAt ?? clock.now(), o.bodyTooLarge ?? false),
    serve: shared
      ? (req, o = {}) => serveShared(engine, shared, req, o.arrivalAt ?? clock.now(), o.bodyTooLarge ?? false)
      : (req, o = {}) => engine.handle(req, o.arrivalAt ?? clock.now(), o.bodyTooLarge ?? false),
    planFault,
    planFaultUpdate,
    applyFaultEntry,
    addFault(input) {
      const planned = planFault(input);
      if (!planned.ok) return planned;
      applyFaultEntry('add', planned.entry.spec.id, planned.entry);
      return { ok: true, fault: info(engine.faults.list().find((f) => f.spec.id === planned.entry.spec.id)!) };
    },
    removeFault: (id) => engine.faults.remove(id),
    updateFault(id, patch) {
      const planned = planFaultUpdate(id, patch);
      if (!planned?.ok) return planned;
      applyFaultEntry('update', id, planned.entry);
      return { ok: true, fault: info(engine.faults.list().find((f) => f.spec.id === id)!) };
    },
    startFaultsAt: (originAt) => engine.faults.rebase(originAt),
    listFaults: () => engine.faults.list().map(info),
    quota() {
      const now = clock.now();
      const out: ReturnType<Simulator['quota']> = {};
      for (const p of engine.providers) {
        out[p.id] = p.quota.snapshot(now).map(({ bucket, view }: { bucket: string; view: LimitView }) => ({
          bucket,
          rule: view.rule.id,
          limit: view.limit,
          remaining: view.remaining,
          resetInMs: Math.round(view.resetInMs),
        }));
      }
      return out;
    },
    endpoints(origin) {
      return engine.providers.map((p) => {
        const root = `${origin}/${p.id}`;
        const baseUrl = p.profile.baseUrl(root);
        return {
          id: p.id,
          vendor: p.profile.id,
          title: p.profile.title,
          root,
          baseUrl,
          models: [...p.spec.models],
          keys: p.spec.keys.map((k) => ({
            id: k.id,
            org: k.org ?? k.id,
            // Keys read from the environment are referenced, never printed.
            value: k.value ?? `$${k.env}`,
            env: p.profile.envLines(baseUrl, k.value ?? `$${k.env}`),
          })),
        };
      });
    },
  };
}
