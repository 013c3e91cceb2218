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
  // Capacity
  { id: 'CAP-1', title: 'The router serves what the weather allowed', level: 'MUST', check: 'goodput' },
  // Cost
  { id: 'COST-1', title: 'No duplicate work', level: 'MUST', check: 'duplicate-work' },
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
