import type { Rng } from '../core/rng.js';

/**
 * Formats a wait as a Go `time.Duration` string, the way OpenAI and Groq write reset headers
 * (`6m0s`, `1s`, `12ms`, `2m59.56s`) and messages (`5.289s`). Rounded up, to the millisecond
 * below a second and to `secondDecimals` decimals above, so that a client never reads a wait
 * shorter than the real one.
 * @see https://pkg.go.dev/time#Duration.String
 * @see https://platform.openai.com/docs/guides/rate-limits
 */
export function formatGoDuration(ms: number, secondDecimals: 2 | 3 = 2): string {
  if (!(ms > 0)) return '0s';
  if (ms < 1000) {
    const whole = Math.ceil(ms);
    if (whole < 1000) return `${whole}ms`;
  }
  const unit = secondDecimals === 2 ? 10 : 1;
  const perSecond = 1000 / unit;
  let ticks = Math.ceil(ms / unit);
  const h = Math.floor(ticks / (3600 * perSecond));
  ticks -= h * 3600 * perSecond;
  const m = Math.floor(ticks / (60 * perSecond));
  ticks -= m * 60 * perSecond;
  const whole = Math.floor(ticks / perSecond);
  const frac = ticks % perSecond;
  const s = frac === 0 ? `${whole}` : `${whole}.${String(frac).padStart(secondDecimals, '0').replace(/0+$/, '')}`;
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}

/**
 * Formats an instant as an HTTP-date (IMF-fixdate), rounded up to the next whole second.
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-5.6.7
 */
export function formatHttpDate(at: number): string {
  return new Date(Math.ceil(at / 1000) * 1000).toUTCString();
}

/**
 * Formats an instant as RFC 3339 with second precision, rounded up (Anthropic's `*-reset`).
 * @see https://docs.anthropic.com/en/api/rate-limits#response-headers
 */
export function formatRfc3339(at: number): string {
  const second = Math.ceil(at / 1000);
  // Every answer writes a few resets, mostly within the same seconds: remember the last few.
  const slot = second & (RFC3339_SLOTS - 1);
  if (rfc3339Seconds[slot] === second) return rfc3339Texts[slot]!;
  const text = new Date(second * 1000).toISOString().replace('.000Z', 'Z');
  rfc3339Seconds[slot] = second;
  rfc3339Texts[slot] = text;
  return text;
}

const RFC3339_SLOTS = 8;
const rfc3339Seconds = new Float64Array(RFC3339_SLOTS).fill(Number.NaN);
const rfc3339Texts = new Array<string>(RFC3339_SLOTS);

/** Whole seconds, rounded up, as `Retry-After` delta-seconds are written. */
export function ceilSeconds(ms: number): number {
  return Math.ceil(ms / 1000);
}

/** Seconds with up to three decimals, trimmed (`5.289`), as vendors print waits in messages. */
export function formatSecondsText(ms: number): string {
  return `${+(Math.ceil(ms) / 1000).toFixed(3)}s`;
}

const HEX = '0123456789abcdef';
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const codes: number[] = [];

function draw(rng: Rng, length: number, alphabet: string): string {
  // One string per id: building it char by char would leave a rope of `length` pieces.
  codes.length = length;
  for (let i = 0; i < length; i++) codes[i] = alphabet.charCodeAt((rng.next() * alphabet.length) | 0);
  return String.fromCharCode.apply(null, codes);
}

/** Hex characters drawn from `rng`. */
export function randomHex(rng: Rng, length: number): string {
  return draw(rng, length, HEX);
}

/** Alphanumeric characters drawn from `rng`. */
export function randomAlnum(rng: Rng, length: number): string {
  return draw(rng, length, ALNUM);
}

/** Hex characters derived from `text` (FNV-1a, then mixed): stable ids for orgs and deployments. */
export function stableHex(text: string, length: number): string {
  // Asked of the same few orgs and models in every answer: remembered by length and text.
  const memo = (stableHexes[length] ??= new Map<string, string>());
  const known = memo.get(text);
  if (known !== undefined) return known;
  const hex = deriveHex(text, length);
  if (memo.size >= STABLE_HEX_MAX) memo.clear();
  memo.set(text, hex);
  return hex;
}

const STABLE_HEX_MAX = 4096;
const stableHexes: Array<Map<string, string> | undefined> = [];

function deriveHex(text: string, length: number): string {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  let out = '';
  while (out.length < length) {
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
    h = Math.imul(h ^ (h >>> 12), 0x297a2d39);
    out += ((h ^ (h >>> 15)) >>> 0).toString(16).padStart(8, '0');
  }
  return out.slice(0, length);
}

/** Formats 32 hex characters as a UUID. */
export function uuidFrom(hex: string): string {
  const h = hex.padEnd(32, '0');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

const stableUuids = new Map<string, string>();

/** {@link uuidFrom} of the 32 {@link stableHex} characters of `text`: an org's id, remembered. */
export function stableUuid(text: string): string {
  let uuid = stableUuids.get(text);
  if (uuid === undefined) {
    uuid = uuidFrom(stableHex(text, 32));
    if (stableUuids.size >= STABLE_HEX_MAX) stableUuids.clear();
    stableUuids.set(text, uuid);
  }
  return uuid;
}
