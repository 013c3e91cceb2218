import { FaultSchema, MAX_SPAN_MS, type FaultSpec } from '../scenario/schema.js';
import { faultIssues } from '../patch-fault.js';

/**
 * A fault as a group of workers shares it (one field of the group's faults hash): its full spec,
 * whether it is on, and its start instant (epoch ms; its end follows from `spec.for`). A removed
 * fault stays as `{ removed: true }`, so that a worker reading the hash late removes it too
 * (a scenario fault included).
 */
export type SharedFaultEntry = { spec: FaultSpec; enabled: boolean; startAt: number } | { removed: true };

/** Largest entry read from Redis, in characters (a fault with every field set is a few KiB). */
export const MAX_ENTRY_CHARS = 64 * 1024;

/** The entry as stored in Redis. */
export function formatSharedFaultEntry(entry: SharedFaultEntry): string {
  return JSON.stringify(entry);
}

/**
 * Reads the entry of fault `id` as stored in Redis, which anyone with access may have written:
 * validated by the control API's schema, the id checked against the field's, the start clamped to
 * the timeline's bounds around `now`. A reason comes back instead when it cannot be used.
 */
export function parseSharedFaultEntry(
  id: string,
  text: string,
  now: number,
): { ok: true; entry: SharedFaultEntry } | { ok: false; reason: string } {
  if (text.length > MAX_ENTRY_CHARS) return { ok: false, reason: `over ${MAX_ENTRY_CHARS} characters` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, reason: 'not an object' };
  const { spec, enabled, startAt, removed } = value as Record<string, unknown>;
  if (removed === true) return { ok: true, entry: { removed: true } };
  if (typeof enabled !== 'boolean') return { ok: false, reason: 'enabled: expected true or false' };
  if (typeof startAt !== 'number' || !Number.isFinite(startAt))
    return { ok: false, reason: 'startAt: expected a number (epoch ms)' };
  const parsed = FaultSchema.safeParse(spec);
  if (!parsed.success) return { ok: false, reason: faultIssues(parsed.error).slice(0, 3).join('; ') };
  if (parsed.data.id !== id) return { ok: false, reason: `spec.id: expected "${id}", the field's name` };
  const clamped = Math.min(Math.max(startAt, now - MAX_SPAN_MS), now + MAX_SPAN_MS);
  return { ok: true, entry: { spec: parsed.data, enabled, startAt: clamped } };
}
