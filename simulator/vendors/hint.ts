import type { EncodeContext, HeaderMap, Hint, HintForm } from './types.js';
import { ceilSeconds, formatHttpDate } from './wire-format.js';

/** The wait a header or body actually carries, as the ledger records it. */
export interface HintSent {
  ms: number;
  form: HintForm;
}

/** What a standard parser would read from a lying raw value (NaN when it is garbage). */
function rawToMs(raw: string, form: HintForm, now: number): number {
  const n = Number(raw);
  if (raw.trim() !== '' && Number.isFinite(n)) return form === 'ms' ? n : n * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? Number.NaN : date - now;
}

/**
 * Writes the generic `Retry-After` forms (delta-seconds, `retry-after-ms`, HTTP-date) for a hint
 * whose form is explicit; vendor-native, reset-header, body and none forms are the vendor's job.
 * @see https://www.rfc-editor.org/rfc/rfc9110#field.retry-after
 */
export function writeRetryHeaders(hint: Hint, ctx: EncodeContext, headers: HeaderMap): HintSent | undefined {
  switch (hint.form) {
    case 'seconds': {
      const value = hint.raw ?? String(ceilSeconds(hint.ms));
      headers['retry-after'] = value;
      return {
        ms: hint.raw !== undefined ? rawToMs(hint.raw, 'seconds', ctx.now) : ceilSeconds(hint.ms) * 1000,
        form: 'seconds',
      };
    }
    case 'ms': {
      const value = hint.raw ?? String(Math.ceil(hint.ms));
      headers['retry-after-ms'] = value;
      return { ms: hint.raw !== undefined ? rawToMs(hint.raw, 'ms', ctx.now) : Math.ceil(hint.ms), form: 'ms' };
    }
    case 'http-date': {
      const at = ctx.now + hint.ms;
      headers['retry-after'] = hint.raw ?? formatHttpDate(at);
      const sentAt = Math.ceil(at / 1000) * 1000;
      return {
        ms: hint.raw !== undefined ? rawToMs(hint.raw, 'http-date', ctx.now) : sentAt - ctx.now,
        form: 'http-date',
      };
    }
    default:
      return undefined;
  }
}

/** The wait as a body or message would state it; a raw lie is passed through as text. */
export function bodyHintMs(hint: Hint, ctx: EncodeContext): number {
  return hint.raw !== undefined ? rawToMs(hint.raw, 'seconds', ctx.now) : hint.ms;
}
