import type { FleetFacts } from '../core/fleet.js';

/** A replica's report on the fleet's channel, with its members' short names (one a second per replica). */
interface Report {
  r: string;
  l?: FleetFacts['limits'];
  h?: FleetFacts['held'];
  b?: FleetFacts['budget'];
}

/** What the fleet's channel carries: a circuit's new stored value, or another replica's report. */
export type FleetMessage =
  { kind: 'circuit'; scope: string; value: string } | { kind: 'report'; from: string; facts: FleetFacts };

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
 * skipped before parsing; what is not JSON, or not a message of ours, reads as undefined.
 */
export function fleetMessageDecoder(replica: string): (message: string) => FleetMessage | undefined {
  const ownReport = `${JSON.stringify({ r: replica }).slice(0, -1)},`;
  return (message) => {
    if (message.startsWith(ownReport)) return undefined;
    let m: { c?: unknown; v?: unknown } & Partial<Report>;
    try {
      m = JSON.parse(message);
    } catch {
      return undefined;
    }
    if (typeof m.c === 'string' && typeof m.v === 'string') return { kind: 'circuit', scope: m.c, value: m.v };
    if (typeof m.r !== 'string' || m.r === replica) return undefined;
    const facts: FleetFacts = {
      limits: Array.isArray(m.l) ? m.l : [],
      held: Array.isArray(m.h) ? m.h : undefined,
      budget: Array.isArray(m.b) ? m.b : [],
      usage: [],
    };
    return { kind: 'report', from: m.r, facts };
  };
}
