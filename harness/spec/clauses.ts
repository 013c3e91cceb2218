import type { CheckId } from '../scenario/schema.js';

/** A clause of the throttlelab router conformance spec (docs/spec.md) and the check that judges it. */
export interface Clause {
  /** `AREA-n`, as docs/spec.md numbers it. */
  id: string;
  title: string;
  /** MUST or SHOULD (RFC 2119): a SHOULD clause's check fails too, its report line says SHOULD. */
  level: 'MUST' | 'SHOULD';
  check: CheckId;
}

/**
 * The clauses of docs/spec.md in its order. test/spec/spec.test.ts holds the two together: every
 * clause here is written there (same id, title, level and check), and the other way round.
 */
export const CLAUSES: readonly Clause[] = [
  // Signals and waits
  { id: 'SIG-1', title: 'No 429 reaches the client', level: 'MUST', check: 'no-429' },
  { id: 'SIG-2', title: 'Every wait form is decoded and honoured', level: 'MUST', check: 'retry-after' },
  { id: 'SIG-3', title: 'A wait covers the whole scope it was announced for', level: 'MUST', check: 'retry-after' },
  { id: 'SIG-4', title: 'One probe when a wait ends', level: 'MUST', check: 'single-probe' },
  // Retry pacing
  { id: 'PACE-1', title: 'A failure without a hint is backed off', level: 'MUST', check: 'no-blind-retry' },
  { id: 'PACE-2', title: 'The backoff grows', level: 'MUST', check: 'no-blind-retry' },
  // Deadlines
  { id: 'DL-1', title: 'One deadline over all attempts', level: 'MUST', check: 'deadline' },
  // Failover and recovery
  { id: 'FO-1', title: 'Failing over adds bounded latency', level: 'MUST', check: 'failover-latency' },
  { id: 'FO-2', title: 'No needless error', level: 'MUST', check: 'no-needless-error' },
  { id: 'FO-3', title: 'Attempts per request stay bounded', level: 'MUST', check: 'amplification' },
  { id: 'FO-4', title: 'Recovery', level: 'MUST', check: 'recovery' },
  // Capacity
  { id: 'CAP-1', title: 'The router serves what the weather allowed', level: 'MUST', check: 'goodput' },
  // Streams
  { id: 'ST-1', title: 'A broken stream ends with an error', level: 'MUST', check: 'stream-integrity' },
  { id: 'ST-2', title: 'One answer, from one attempt', level: 'MUST', check: 'content-integrity' },
  // Answers
  { id: 'ANS-1', title: 'The answer is from the model asked for', level: 'MUST', check: 'answer-integrity' },
  { id: 'ANS-2', title: 'Usage is what the provider metered', level: 'MUST', check: 'usage' },
  // Requests
  { id: 'REQ-1', title: 'Requests are passed on faithfully', level: 'MUST', check: 'request-fidelity' },
  // Cost
  { id: 'COST-1', title: 'No duplicate work', level: 'MUST', check: 'duplicate-work' },
  { id: 'COST-2', title: 'Cache hints are kept, and so is the cache', level: 'MUST', check: 'cache-use' },
  // The router's own answers
  { id: 'OWN-1', title: 'Its own errors carry the right status', level: 'MUST', check: 'own-answers' },
  { id: 'OWN-2', title: 'Its own errors are shaped as the API’s SDKs parse them', level: 'MUST', check: 'own-answers' },
  { id: 'OWN-3', title: 'Nothing upstream-internal reaches the client', level: 'MUST', check: 'no-leak' },
  // Client errors
  { id: 'CE-1', title: 'Client errors go back to the client', level: 'MUST', check: 'client-errors' },
  // Keys and security
  { id: 'KEY-1', title: 'Keys stay with their provider', level: 'MUST', check: 'key-isolation' },
];

/** The clauses a check judges, in spec order. */
export function clausesOf(check: CheckId): Clause[] {
  return CLAUSES.filter((c) => c.check === check);
}

/** What a check's FAIL line says it broke: `breaks KEY-1 (MUST: Keys stay with their provider)`; empty for a check no clause names. */
export function brokenClauses(check: CheckId): string {
  const clauses = clausesOf(check);
  return clauses.length
    ? `breaks ${clauses.map((c) => `${c.id} (${c.level}: ${c.title})`).join(', ')} of docs/spec.md`
    : '';
}
