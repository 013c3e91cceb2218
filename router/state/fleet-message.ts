import type { FleetFacts } from '../core/fleet.js';
import { boundReport, CircuitMessageSchema, ReportSchema, type FleetBounds } from './fleet-bounds.js';

/** A replica's report on the fleet's channel, with its members' short names (one a second per replica). */
interface Report {
  r: string;
  l?: FleetFacts['limits'];
  h?: FleetFacts['held'];
  b?: FleetFacts['budget'];
}

/** Far above a report of every target a config can name; past it a message is not even parsed. */
const MAX_MESSAGE_CHARS = 4 * 1024 * 1024;

/**
 * What the fleet's channel carries: a circuit's new stored value, another replica's report, or
 * something that is neither (`invalid`, with why in a few words, never the message itself).
 */
export type FleetMessage =
  | { kind: 'circuit'; scope: string; value: string }
  | { kind: 'report'; from: string; facts: FleetFacts }
  | { kind: 'invalid'; why: string };

/**
 * A replica's news (limits, in-flight counts, budget counts) as one channel message; undefined
 * when it has none. Usage never travels on the channel: it is written to Redis.
 */
export function encodeReport(replica: string, facts: FleetFacts): string | undefined {
  const report: Report = { r: replica };
  if (facts.limits.length > 0) report.l = facts.limits;
  if (facts.held !== undefined) report.h = facts.held;
  if (facts.budget.length > 0) report.b = facts.budget;
  const news = report.l !== undefined || report.h !== undefined || report.b !== undefined;
  return news ? JSON.stringify(report) : undefined;
}

/**
 * Reads the channel's messages for `replica`: its own reports come back on the channel and are
 * skipped before parsing (undefined). Everything else is validated: a report's figures are clamped
 * to `bounds` as of `now()` (a circuit's value is bounded where it is read, shared-circuits.ts),
 * and what is not JSON or not a message of ours reads as `invalid`.
 */
export function fleetMessageDecoder(
  replica: string,
  bounds: FleetBounds,
  now: () => number,
): (message: string) => FleetMessage | undefined {
  const ownReport = `${JSON.stringify({ r: replica }).slice(0, -1)},`;
  return (message) => {
    if (message.startsWith(ownReport)) return undefined;
    if (message.length > MAX_MESSAGE_CHARS) return { kind: 'invalid', why: 'a message too long' };
    let m: unknown;
    try {
      m = JSON.parse(message);
    } catch {
      return { kind: 'invalid', why: 'a message that is not JSON' };
    }
    const circuit = CircuitMessageSchema.safeParse(m);
    if (circuit.success) return { kind: 'circuit', scope: circuit.data.c, value: circuit.data.v };
    const report = ReportSchema.safeParse(m);
    if (!report.success) return { kind: 'invalid', why: 'a message of unknown shape or with values out of range' };
    if (report.data.r === replica) return undefined;
    return { kind: 'report', from: report.data.r, facts: boundReport(report.data, now(), bounds) };
  };
}
