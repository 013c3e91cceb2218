import { groupBy, summary } from '../checks/types.js';
import { deriveWindows } from '../checks/windows.js';
import type { RunData } from '../run-data.js';
import { TOOL_VERSION } from '../version.js';
import { cacheStats } from './cache-stats.js';
import type { ProviderTimeline, Report } from './report.js';

const BOUNDS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000, Infinity];
const MAX_POINTS_PER_PROVIDER = 4000;

function histogram(values: number[]): { boundsMs: number[]; counts: number[] } {
  const counts = BOUNDS.map(() => 0);
  for (const v of values) counts[BOUNDS.findIndex((b) => v <= b)]!++;
  let last = counts.length;
  while (last > 1 && counts[last - 1] === 0) last--;
  return { boundsMs: BOUNDS.slice(0, last).map((b) => (Number.isFinite(b) ? b : -1)), counts: counts.slice(0, last) };
}

function timelines(data: RunData): ProviderTimeline[] {
  const t0 = data.loadStartedAt;
  const windows = deriveWindows(data.rows, 'model');
  // The ledger read once, not once per provider (twice): a day's run has most of a million rows.
  const byProvider = groupBy(data.rows, (r) => r.provider);
  return data.scenario.providers.map((p) => {
    const all = byProvider.get(p.id) ?? [];
    const rows = all.filter((r) => r.endpoint === 'chat');
    const lanes: string[] = [];
    const lane = (key: string, model: string | null) => {
      const name = `${key} · ${model ?? '?'}`;
      let i = lanes.indexOf(name);
      if (i < 0) i = lanes.push(name) - 1;
      return i;
    };
    const byStatus: Record<string, number> = {};
    for (const r of rows) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
    const ok = rows.filter((r) => r.status === 200);
    const step = Math.max(1, Math.ceil(ok.length / Math.max(1, MAX_POINTS_PER_PROVIDER - (rows.length - ok.length))));
    const attempts: Array<[number, number, number]> = [];
    let i = 0;
    for (const r of rows) {
      if (r.status === 200 && i++ % step !== 0) continue;
      attempts.push([Number(((r.arrivalAt - t0) / 1000).toFixed(3)), lane(r.key, r.model), r.status]);
    }
    const mine = windows
      .filter((w) => w.provider === p.id)
      .map(
        (w) =>
          [
            Number(((w.start - t0) / 1000).toFixed(3)),
            Number(((w.end - t0) / 1000).toFixed(3)),
            lane(w.key, w.model),
          ] as [number, number, number],
      );
    const cache = cacheStats(all);
    return {
      id: p.id,
      lanes,
      attempts,
      windows: mine,
      totals: { attempts: rows.length, byStatus },
      ...(cache ? { cache } : {}),
    };
  });
}

/** Builds the versioned report of a run. */
export function buildReport(data: RunData): Report {
  const load = data.scenario.load!;
  const answered = data.outcomes.filter((o) => o.status !== 0);
  const byStatus: Record<string, number> = {};
  for (const o of data.outcomes) {
    const k = o.status === 0 ? (o.error ?? 'none') : String(o.status);
    byStatus[k] = (byStatus[k] ?? 0) + 1;
  }
  const latencies = answered.map((o) => o.endAt - o.sentAt);
  const ttfts = data.outcomes.filter((o) => o.firstContentAt !== null).map((o) => o.firstContentAt! - o.sentAt);
  const seconds = Math.max(1, Math.ceil((data.loadEndedAt - data.loadStartedAt) / 1000));
  const perSecond = Array.from({ length: seconds }, (_, t) => ({ t, ok: 0, clientError: 0, serverError: 0, none: 0 }));
  for (const o of data.outcomes) {
    const s = perSecond[Math.min(seconds - 1, Math.max(0, Math.floor((o.endAt - data.loadStartedAt) / 1000)))]!;
    if (o.status === 0) s.none++;
    else if (o.status < 400) s.ok++;
    else if (o.status < 500) s.clientError++;
    else s.serverError++;
  }
  const failover = data.checks.find((c) => c.id === 'failover-latency');
  return {
    schema: 'throttlelab.report/v1',
    tool: { name: 'throttlelab', version: TOOL_VERSION },
    scenario: {
      name: data.scenario.name,
      description: data.scenario.description,
      file: data.scenarioFile,
      sha256: data.scenarioSha256,
    },
    seed: data.seed,
    router: data.router,
    ...(data.routerRedacted ? { routerRedacted: true } : {}),
    ...(data.fleet ? { fleet: data.fleet } : {}),
    verdict: data.verdict,
    inconclusive: data.inconclusive,
    ...(data.judgingStopped ? { judgingStopped: data.judgingStopped } : {}),
    faults: data.faults,
    lag: data.lag,
    ...(data.loadWorkers ? { loadWorkers: data.loadWorkers } : {}),
    ...(data.routerRunQueue ? { routerRunQueue: data.routerRunQueue } : {}),
    startedAt: new Date(data.startedAt).toISOString(),
    durationMs: Math.round(data.endedAt - data.startedAt),
    load: {
      mode: load.mode,
      durationMs: load.duration,
      ...(load.mode === 'open'
        ? { rate: load.rate ?? Math.max(...(load.ramp ?? []).map((r) => r.rate)) }
        : { connections: load.connections }),
      deadlineMs: load.requests.deadline,
      sent: data.outcomes.length,
      dropped: data.dropped,
      interrupted: data.interrupted,
      streams: data.outcomes.filter((o) => o.stream).length,
      achievedRate: Number(
        (data.outcomes.length / Math.max(0.001, (data.loadEndedAt - data.loadStartedAt) / 1000)).toFixed(1),
      ),
      byStatus,
    },
    latency: { answered: summary(latencies), ttft: summary(ttfts) },
    checks: data.checks.map((c) => ({
      ...c,
      details: c.id === 'failover-latency' && c.details ? { ...c.details, addedValues: undefined } : c.details,
    })),
    series: {
      latency: histogram(latencies),
      failoverAddedMs: ((failover?.details?.addedValues as number[] | undefined) ?? []).slice(0, 20_000),
      perSecond,
      providers: timelines(data),
    },
  };
}
