import { deriveSeed } from '../core/rng.js';
import { Ledger } from '../ledger/ledger.js';
import type { Scenario } from '../scenario/schema.js';
import type { SimRequest } from '../vendors/types.js';
import { FaultBook } from './fault-book.js';
import { Keyring } from './keyring.js';
import { createProviderRuntime, type ProviderRuntime } from './provider-runtime.js';
import { Recorder } from './recorder.js';
import type { Reply } from './reply.js';
import { answer } from './stages/answer.js';
import { isChat, isRefused, type Faulted } from './stages/attempt.js';
import { authenticate } from './stages/authenticate.js';
import { commitCache, lookUpCache } from './stages/cache.js';
import { applyFaults } from './stages/fault.js';
import { parse } from './stages/parse.js';
import { admit, type QuotaGate } from './stages/quota.js';
import { route, type RouteTable } from './stages/route.js';
import { tokenRuleFor, warmTokenizer } from './tokens.js';
import { createVocabulary, type Vocabulary } from './vocabulary.js';

/** What the engine needs beyond the scenario. */
export interface EngineOptions {
  seed: number;
  /** Credential values by `providerId/keyId`, resolved from the scenario and environment. */
  keyValues: ReadonlyMap<string, string>;
  startedAt: number;
}

/**
 * The simulated vendors' brain: owns the providers (their quotas and prompt caches), the
 * credentials, the fault timeline and the ledger, and passes each request through the stages in
 * `stages/`, each of which answers it or hands it on. Pure apart from that state: time comes in
 * as `now`, randomness from the seed.
 */
export class Engine implements RouteTable {
  readonly providers: ProviderRuntime[];
  readonly byId: ReadonlyMap<string, ProviderRuntime>;
  readonly ledger: Ledger;
  readonly faults: FaultBook;
  readonly keyring = new Keyring();
  readonly startedAt: number;
  readonly seed: number;
  readonly correlationHeaders: readonly string[];
  private readonly vocabulary: Vocabulary;
  private readonly recorder: Recorder;

  constructor(
    readonly scenario: Scenario,
    options: EngineOptions,
  ) {
    this.seed = options.seed;
    this.startedAt = options.startedAt;
    this.providers = scenario.providers.map((p, i) => createProviderRuntime(p, i));
    this.byId = new Map(this.providers.map((p) => [p.id, p]));
    this.ledger = new Ledger({ maxRows: scenario.simulator.ledger.maxRows });
    this.recorder = new Recorder(this.ledger);
    this.faults = new FaultBook(options.seed);
    this.vocabulary = createVocabulary(deriveSeed(options.seed, 0));
    this.correlationHeaders = scenario.simulator.correlationHeaders.map((h) => h.toLowerCase());
    for (const p of this.providers) {
      for (const k of p.spec.keys) {
        const value = options.keyValues.get(`${p.id}/${k.id}`);
        if (value !== undefined)
          this.keyring.add(
            p.profile.keyIdentity?.(value) ?? value,
            { providerIndex: p.index, providerId: p.id, keyId: k.id, org: k.org ?? k.id },
            value.split(':'),
          );
      }
    }
    for (const f of scenario.faults) this.faults.add(f, this.startedAt, 'scenario');
    if (this.providers.some((p) => tokenRuleFor(p.profile.id) === 'o200k')) warmTokenizer();
  }

  /**
   * Answers one request that arrived at `now`: route → authenticate → parse → fault → cache →
   * quota → answer. Each stage either refuses the attempt (answered with the vendor's error and
   * recorded) or hands it on; only a path under no provider goes unrecorded.
   */
  handle(req: SimRequest, now: number, bodyTooLarge = false): Reply {
    const begun = this.begin(req, now, bodyTooLarge);
    return 'steps' in begun ? begun : this.finish(begun);
  }

  /**
   * The stages before the quota: answers the request (a refusal, the model list) or hands it on,
   * looked up in the prompt cache, to be metered by `finish`. Split so that a quota decided
   * elsewhere (shared through Redis) can be awaited in between.
   */
  begin(req: SimRequest, now: number, bodyTooLarge = false): Reply | Faulted {
    const routed = route(this, req, now);
    if ('steps' in routed) return routed; // a bare 404: no provider to record it under
    if (isRefused(routed)) return this.recorder.refusal(routed);
    const authenticated = authenticate(routed);
    if (isRefused(authenticated)) return this.recorder.refusal(authenticated);
    // The model list: nothing to parse, fault or meter.
    if (!isChat(authenticated)) return this.recorder.models(authenticated);
    const parsed = parse(authenticated, bodyTooLarge);
    if (isRefused(parsed)) return this.recorder.refusal(parsed);
    const faulted = applyFaults(parsed, this.faults);
    if (isRefused(faulted)) return this.recorder.refusal(faulted);
    return lookUpCache(faulted);
  }

  /** Meters a begun request through `quota` (the provider's own unless decided elsewhere) and answers it. */
  finish(attempt: Faulted, quota: QuotaGate = attempt.provider.quota): Reply {
    const admitted = admit(attempt, quota);
    if (isRefused(admitted)) return this.recorder.refusal(admitted);
    commitCache(admitted);
    return answer(admitted, this.vocabulary, this.recorder);
  }
}
