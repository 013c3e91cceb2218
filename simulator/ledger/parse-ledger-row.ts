import { z } from 'zod';
import type { LedgerRow } from './ledger-row.js';

/** The longest row line read from elsewhere (a group's Redis stream), in characters. */
export const LEDGER_ROW_MAX_CHARS = 128 * 1024;

/** The span of epoch ms in which any time a row read from elsewhere carries must lie. */
export interface RowTimeBounds {
  notBefore: number;
  notAfter: number;
}

/** What reading one row from elsewhere came to: the row, or why it was refused. */
export type ParsedLedgerRow = { ok: true; row: LedgerRow } | { ok: false; reason: string };

// Bounds are those of the ledger's own columns (Uint16 statuses, Uint32 token counts, Int32
// retry counts and lengths), so a row that passes is stored as it was written, never wrapped.
const U32 = 2 ** 32 - 1;
const I32 = 2 ** 31 - 1;
const label = z.string().max(256);
const count = z.number().int().min(0).max(U32);
const quotaFigure = z.number().min(-1e12).max(1e12).nullable();

const RowSchema = z.object({
  seq: z.number().int().min(0).max(U32),
  arrivalAt: z.number(),
  firstByteAt: z.number().nullable(),
  endAt: z.number().nullable(),
  provider: label,
  vendor: label,
  key: label,
  model: label.nullable(),
  endpoint: z.enum(['chat', 'models', 'other', 'responses', 'embeddings', 'invoke']),
  correlationId: label.nullable(),
  sdkRetryCount: z.number().int().min(0).max(I32).nullable(),
  stream: z.boolean(),
  status: z.number().int().min(0).max(999),
  errorType: label.nullable(),
  hintMs: z.number().min(0).max(1e10).nullable(),
  hintForm: z.enum(['seconds', 'ms', 'http-date', 'reset-header', 'body', 'none', 'garbage']).nullable(),
  scope: z.enum(['key', 'org', 'provider']).optional(),
  org: label.optional(),
  quota: z.object({
    requestsBefore: quotaFigure,
    requestsAfter: quotaFigure,
    tokensBefore: quotaFigure,
    tokensAfter: quotaFigure,
    emptyForMs: z.number().min(0).max(1e12).nullable(),
  }),
  tokensIn: count,
  tokensOut: count,
  cacheRead: count.optional(),
  cacheWrite: count.optional(),
  faults: z.array(label).max(64),
  contentDigest: z
    .string()
    .regex(/^[0-9a-f]{14}$/)
    .nullable(),
  contentChars: z.number().int().min(0).max(I32).nullable(),
  carried: z.array(label).max(64),
  request: z
    .string()
    .max(64 * 1024)
    .optional(),
  end: z.enum(['complete', 'error-event', 'truncated', 'reset', 'client-abort', 'malformed', 'pending', 'shutdown']),
  degraded: z.literal(true).optional(),
});

/**
 * Reads one ledger row written by another process (a JSON line from a group's Redis stream) as
 * untrusted input: the wrong types, numbers out of the ledger's ranges, times outside `bounds`
 * or out of order, and oversized lines are refused with a reason, never thrown or stored.
 */
export function parseLedgerRow(line: string, bounds: RowTimeBounds): ParsedLedgerRow {
  if (line.length > LEDGER_ROW_MAX_CHARS) return { ok: false, reason: `a line of ${line.length} characters` };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  const parsed = RowSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ok: false, reason: `${issue.path.join('.') || 'row'}: ${issue.message}` };
  }
  const row = parsed.data as LedgerRow;
  const within = (t: number) => t >= bounds.notBefore && t <= bounds.notAfter;
  if (!within(row.arrivalAt)) return { ok: false, reason: 'arrivalAt: outside the run' };
  for (const name of ['firstByteAt', 'endAt'] as const) {
    const t = row[name];
    if (t !== null && !(within(t) && t >= row.arrivalAt))
      return { ok: false, reason: `${name}: before its arrival or outside the run` };
  }
  return { ok: true, row };
}
