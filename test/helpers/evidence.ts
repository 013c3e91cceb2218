import type { LedgerRow } from '../../simulator/ledger/ledger-row.js';
import type { ClientOutcome } from '../../harness/load/client-outcome.js';
import { parseRunScenario as parseScenario } from '../../harness/scenario/parse-run-scenario.js';
import type { RunScenario as Scenario } from '../../harness/scenario/schema.js';

/** A synthetic run starts at this epoch ms, so that times read as offsets. */
export const T0 = 1_800_000_000_000;

let seq = 0;

/** A ledger row: a successful plain chat attempt on openai/main/gpt-4o-mini unless overridden. */
export function row(p: Partial<LedgerRow> & { at?: number } = {}): LedgerRow {
  const arrivalAt = T0 + (p.at ?? 0);
  const { at: _at, ...rest } = p;
  return {
    seq: seq++,
    arrivalAt,
    firstByteAt: arrivalAt + 5,
    endAt: arrivalAt + 20,
    provider: 'openai',
    vendor: 'openai',
    key: 'main',
    model: 'gpt-4o-mini',
    endpoint: 'chat',
    correlationId: null,
    sdkRetryCount: null,
    stream: false,
    status: 200,
    errorType: null,
    hintMs: null,
    hintForm: null,
    quota: { requestsBefore: null, requestsAfter: null, tokensBefore: null, tokensAfter: null, emptyForMs: null },
    tokensIn: 10,
    tokensOut: 5,
    faults: [],
    end: 'complete',
    contentDigest: null,
    contentChars: null,
    carried: [],
    ...rest,
  };
}

/** A 429 that announced `hintMs`, answered `at`. */
export const limited = (at: number, hintMs: number, p: Partial<LedgerRow> = {}) =>
  row({
    at,
    firstByteAt: T0 + at,
    endAt: T0 + at + 1,
    status: 429,
    errorType: 'rate_limit_exceeded',
    hintMs,
    hintForm: 'seconds',
    ...p,
  });

/** What a client saw: a plain request answered 200 in 100 ms unless overridden. */
export function outcome(p: Partial<ClientOutcome> & { at?: number } = {}): ClientOutcome {
  const sentAt = T0 + (p.at ?? 0);
  const { at: _at, ...rest } = p;
  return {
    id: 'c1',
    model: 'auto',
    stream: false,
    deadlineMs: 5000,
    scheduledAt: sentAt,
    sentAt,
    firstByteAt: sentAt + 100,
    firstContentAt: null,
    endAt: sentAt + 100,
    status: 200,
    error: null,
    streamEnd: null,
    usage: { prompt: 10, completion: 5 },
    servedBy: null,
    retryAfter: null,
    ...rest,
  };
}

const WORLD = `version: 1
name: synthetic
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-a }, { id: second, value: sk-b }] }
  - { id: anthropic, vendor: anthropic, models: [claude-haiku-4-5], keys: [{ id: main, value: sk-ant }] }
`;

/** A two-provider scenario with the given extra YAML (faults, expect…). */
export function world(extra = ''): Scenario {
  const parsed = parseScenario(WORLD + extra);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.scenario;
}

/** The input every check takes. */
export const input = (p: { rows?: LedgerRow[]; outcomes?: ClientOutcome[]; scenario?: Scenario }) => ({
  rows: p.rows ?? [],
  outcomes: p.outcomes ?? [],
  scenario: p.scenario ?? world(),
  startedAt: T0,
});

/** The loop behind schedule in the given spans (ms from T0), as `LoopStalls.behindMs` reports it. */
export const stalls =
  (...spans: [number, number][]) =>
  (from: number, to: number) =>
    spans.reduce((sum, [a, b]) => sum + Math.max(0, Math.min(T0 + b, to) - Math.max(T0 + a, from)), 0);
