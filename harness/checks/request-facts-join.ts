import { shapeOfVendor, type LedgerRow, type RequestFacts, type RequestShape } from '../../simulator/index.js';
import type { ClientOutcome } from '../load/client-outcome.js';

/** An attempt beside the request its client sent: what each asked for, and the vendor's API shape. */
export interface JoinedAttempt {
  row: LedgerRow;
  client: RequestFacts;
  sent: RequestFacts;
  shape: RequestShape;
}

const PLAIN: RequestFacts = { n: 0 };

/**
 * Every chat attempt whose client request says what it asked for (`ClientOutcome.request`),
 * joined by correlation id, in arrival order; each distinct facts text parsed once. Attempts
 * refused before their body was read (4xx other than 429, with no facts) and those whose facts the ledger could
 * no longer keep (`<other>`, past its intern table) are left out.
 */
export function joinRequestFacts(outcomes: readonly ClientOutcome[], rows: readonly LedgerRow[]): JoinedAttempt[] {
  const parsed = new Map<string, RequestFacts>();
  const parse = (text: string): RequestFacts => {
    let f = parsed.get(text);
    if (f === undefined) {
      f = { n: 0, ...(JSON.parse(text) as Partial<RequestFacts>) };
      parsed.set(text, f);
    }
    return f;
  };
  const asked = new Map<string, RequestFacts>();
  for (const o of outcomes) if (o.request !== undefined) asked.set(o.id, parse(o.request));
  const out: JoinedAttempt[] = [];
  if (asked.size === 0) return out;
  for (const row of rows) {
    if (row.endpoint !== 'chat' && row.endpoint !== 'responses') continue;
    // Refused before the body was read (a key, a path, a body it could not parse): nothing to compare.
    if (row.request === undefined && row.status >= 400 && row.status < 429) continue;
    const client = row.correlationId === null ? undefined : asked.get(row.correlationId);
    if (!client) continue;
    const text = row.request;
    if (text === '<other>') continue;
    out.push({
      row,
      client,
      sent: text === undefined ? PLAIN : parse(text),
      shape: shapeOfVendor(row.vendor, row.endpoint === 'responses' ? 'responses' : undefined),
    });
  }
  return out;
}
