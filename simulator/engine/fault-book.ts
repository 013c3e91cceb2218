import { createRng, deriveSeed } from '../core/rng.js';
import type { Dist, FaultSpec } from '../scenario/schema.js';

/** A fault placed on the timeline: active in [startAt, endAt). */
export interface ActiveFault {
  spec: FaultSpec;
  startAt: number;
  endAt: number;
  /** Requests that matched its selectors inside the window so far. */
  seen: number;
  /** Requests it was applied to. */
  applied: number;
  origin: 'scenario' | 'live';
  /** A disabled fault stays on the timeline but matches nothing (Toxiproxy's disabled proxy). */
  enabled: boolean;
  /** Stable number for seeding probability draws. */
  serial: number;
}

/** What the faults decided for one request. */
export interface FaultDecision {
  /** The first matching fault that shapes the response (anything but latency). */
  response?: ActiveFault;
  ttft?: Dist;
  tokensPerSecond?: Dist;
  /** Ids of every fault applied, for the ledger. */
  ids: string[];
}

const NO_FAULTS: FaultDecision = Object.freeze({ ids: Object.freeze([]) as unknown as string[] });

/** The request facts selectors look at. */
export interface FaultTarget {
  providerId: string;
  keyId: string;
  model: string;
  stream: boolean;
}

/**
 * The fault timeline: scenario faults plus live ones from the control API. Every fault counts
 * its own matches, so `firstN`, `everyNth` and seeded `probability` draws do not depend on what
 * other faults did, and a replay with the same seed decides the same way.
 */
export class FaultBook {
  private faults: ActiveFault[] = [];
  private serial = 0;

  constructor(private readonly seed: number) {}

  /** Places `spec` on the timeline with its `at` counted from `origin`. */
  add(spec: FaultSpec, originAt: number, origin: 'scenario' | 'live'): ActiveFault {
    const startAt = originAt + spec.at;
    const fault: ActiveFault = {
      spec,
      startAt,
      endAt: spec.for === undefined ? Infinity : startAt + spec.for,
      seen: 0,
      applied: 0,
      origin,
      enabled: true,
      serial: this.serial++,
    };
    this.faults.push(fault);
    return fault;
  }

  /**
   * Moves the scenario's faults so their `at` counts from `originAt` (a run's load start: the
   * router is ready by then), rather than from the simulator's start. Live faults stay put.
   */
  rebase(originAt: number): void {
    for (const f of this.faults) {
      if (f.origin !== 'scenario') continue;
      f.startAt = originAt + f.spec.at;
      f.endAt = f.spec.for === undefined ? Infinity : f.startAt + f.spec.for;
    }
  }

  remove(id: string): boolean {
    const before = this.faults.length;
    this.faults = this.faults.filter((f) => f.spec.id !== id);
    return this.faults.length !== before;
  }

  /**
   * Replaces the spec of fault `id`, keeping its counters; `startAt` (and `endAt`, Infinity: until
   * removed) move it on the timeline when given. False when there is no such fault.
   */
  update(id: string, spec: FaultSpec, window?: { startAt: number; endAt: number }): boolean {
    const fault = this.faults.find((f) => f.spec.id === id);
    if (!fault) return false;
    fault.spec = spec;
    if (window) Object.assign(fault, window);
    return true;
  }

  /** Turns fault `id` on or off without taking it off the timeline; false when there is no such fault. */
  setEnabled(id: string, enabled: boolean): boolean {
    const fault = this.faults.find((f) => f.spec.id === id);
    if (!fault) return false;
    fault.enabled = enabled;
    return true;
  }

  list(): readonly ActiveFault[] {
    return this.faults;
  }

  get size(): number {
    return this.faults.length;
  }

  /** Decides which faults apply to a request arriving at `now`. */
  decide(target: FaultTarget, now: number): FaultDecision {
    if (this.faults.length === 0) return NO_FAULTS;
    const decision: FaultDecision = { ids: [] };
    for (const f of this.faults) {
      if (!f.enabled || now < f.startAt || now >= f.endAt) continue;
      const { match } = f.spec;
      if (match.provider && !match.provider.includes(target.providerId)) continue;
      if (match.key && !match.key.includes(target.keyId)) continue;
      if (match.model && !match.model.includes(target.model)) continue;
      if (match.stream !== undefined && match.stream !== target.stream) continue;
      if (f.spec.kind === 'stream-break' && !target.stream) continue;
      const n = ++f.seen;
      if (match.firstN !== undefined && n > match.firstN) continue;
      if (match.everyNth !== undefined && n % match.everyNth !== 0) continue;
      if (
        match.probability !== undefined &&
        createRng(deriveSeed(this.seed, 2, f.serial, n)).next() >= match.probability
      )
        continue;
      if (f.spec.kind === 'latency') {
        if (f.spec.ttft) decision.ttft = f.spec.ttft;
        if (f.spec.tokensPerSecond) decision.tokensPerSecond = f.spec.tokensPerSecond;
      } else if (decision.response) {
        continue;
      } else {
        decision.response = f;
      }
      f.applied++;
      decision.ids.push(f.spec.id);
    }
    return decision;
  }
}
