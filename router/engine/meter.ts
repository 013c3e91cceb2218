import type { AttemptOutcome, Usage } from '../core/types.js';

// More than any model's context in one answer: a count past it is not a count.
const MAX_TOKENS_PER_ATTEMPT = 100_000_000;

const tokenCount = (n: number) => (Number.isSafeInteger(n) && n >= 0 && n <= MAX_TOKENS_PER_ATTEMPT ? n : 0);

// The fleet counter of each outcome, spelled once rather than built per attempt.
const ATTEMPT_FIELDS: Record<AttemptOutcome['kind'], string> = {
  ok: 'attempts.ok',
  rate_limited: 'attempts.rate_limited',
  quota_exhausted: 'attempts.quota_exhausted',
  overloaded: 'attempts.overloaded',
  server_error: 'attempts.server_error',
  timeout: 'attempts.timeout',
  network_error: 'attempts.network_error',
  auth_error: 'attempts.auth_error',
  not_found: 'attempts.not_found',
  client_error: 'attempts.client_error',
  stream_error: 'attempts.stream_error',
  aborted: 'attempts.aborted',
};

/** Counters for one target. */
export interface TargetUsage {
  attempts: Partial<Record<AttemptOutcome['kind'], number>>;
  /** Client requests this target answered. */
  served: number;
  promptTokens: number;
  completionTokens: number;
  /** Tokens counted by estimate because the provider reported none (e.g. a broken stream). */
  estimatedTokens: number;
  /** Of the prompt tokens, those read from the provider's prompt cache, and those written to it. */
  cachedTokens: number;
  cacheWriteTokens: number;
}

/** Usage per provider, key and model, every attempt included (failed and partial ones too). */
export class Meter {
  private readonly targets = new Map<string, TargetUsage>();
  /** Counts since the fleet last heard, per target and counter (`attempts.ok`, `promptTokens`, …). */
  private readonly unreported = new Map<string, Record<string, number>>();

  private count(target: string, field: string, n: number): void {
    if (n === 0) return;
    let c = this.unreported.get(target);
    if (!c) this.unreported.set(target, (c = {}));
    c[field] = (c[field] ?? 0) + n;
  }

  /** The counts since the last call, for the fleet's totals. */
  takeUnreported(): Array<[string, Record<string, number>]> {
    const out = [...this.unreported];
    this.unreported.clear();
    return out;
  }

  private get(target: string): TargetUsage {
    let u = this.targets.get(target);
    if (!u) {
      u = {
        attempts: {},
        served: 0,
        promptTokens: 0,
        completionTokens: 0,
        estimatedTokens: 0,
        cachedTokens: 0,
        cacheWriteTokens: 0,
      };
      this.targets.set(target, u);
    }
    return u;
  }

  attempt(target: string, outcome: AttemptOutcome['kind'], usage?: Usage): void {
    const u = this.get(target);
    u.attempts[outcome] = (u.attempts[outcome] ?? 0) + 1;
    this.count(target, ATTEMPT_FIELDS[outcome] ?? `attempts.${outcome}`, 1);
    if (usage) {
      // A provider's usage is its word: negative, fractional or absurd counts (1e308) would
      // poison counters that only ever go up (here and in the fleet's shared totals), so they are not counted at all.
      const prompt = tokenCount(usage.promptTokens);
      const completion = tokenCount(usage.completionTokens);
      u.promptTokens += prompt;
      u.completionTokens += completion;
      this.count(target, 'promptTokens', prompt);
      this.count(target, 'completionTokens', completion);
      const cached = tokenCount(usage.cachedTokens ?? 0);
      const written = tokenCount(usage.cacheWriteTokens ?? 0);
      u.cachedTokens += cached;
      u.cacheWriteTokens += written;
      this.count(target, 'cachedTokens', cached);
      this.count(target, 'cacheWriteTokens', written);
      if (usage.estimated) {
        u.estimatedTokens += prompt + completion;
        this.count(target, 'estimatedTokens', prompt + completion);
      }
    }
  }

  served(target: string): void {
    this.get(target).served++;
    this.count(target, 'served', 1);
  }

  entries(): IterableIterator<[string, TargetUsage]> {
    return this.targets.entries();
  }

  of(target: string): TargetUsage | undefined {
    return this.targets.get(target);
  }
}
