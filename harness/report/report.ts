import type { LoadWorkerSummary } from '../load/load-group-keys.js';
import type { RouterRunQueueSummary } from '../launch/run-queue-delay.js';
import type { CacheStats } from './cache-stats.js';
import type { FaultCoverage } from '../checks/run-checks.js';
import type { CheckResult, HarnessLag } from '../checks/types.js';
import type { FleetSummary } from '../fleet/fleet-run.js';

/** Latency figures in ms. */
export interface LatencySummary {
  count: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  max: number | null;
}

/** One provider's attempts over time, for the timeline chart. */
export interface ProviderTimeline {
  id: string;
  /** `key · model` lanes. */
  lanes: string[];
  /** [seconds since the load started, lane, status] — every failure, successes sampled. */
  attempts: Array<[number, number, number]>;
  /** Announced waits: [start s, end s, lane]. */
  windows: Array<[number, number, number]>;
  totals: { attempts: number; byStatus: Record<string, number> };
  /** The provider's prompt cache over the answered requests (absent when it answered none). */
  cache?: CacheStats;
}

/** A run's report, versioned: everything the renderers need, so `throttlelab report` can redraw it. */
/** The raw evidence a run kept beside its report (`--evidence`). */
export interface EvidenceKept {
  /** `full`: every attempt and outcome; `summary`: those of the requests the checks cite; `none`. */
  mode: 'full' | 'summary' | 'none';
  /** The files, relative to the report's folder (`.jsonl.gz`: gzip-compressed JSON lines). */
  files: string[];
  /** Attempts and outcomes written… */
  attempts: number;
  outcomes: number;
  /** …of the run's. */
  of: { attempts: number; outcomes: number };
}

export interface Report {
  schema: 'throttlelab.report/v1';
  tool: { name: 'throttlelab'; version: string };
  scenario: { name: string; description?: string; file: string; sha256: string };
  seed: number;
  router: string;
  /** Secrets were removed from `router` (the command's variables, header values, credentials): it may not run as shown. */
  routerRedacted?: boolean;
  /** A fleet run: replicas, store, spread, requests per replica and the Redis faults played. */
  fleet?: FleetSummary;
  /**
   * `inconclusive`: nothing failed but something could not be judged (`inconclusive` says what);
   * `interrupted`: stopped by the user before the load ended (the checks judged what was
   * answered), or while it was judged (`judgingStopped` says which checks were not).
   */
  verdict: 'pass' | 'fail' | 'inconclusive' | 'interrupted';
  /** Why the run is inconclusive, one line each (absent in reports written before it existed). */
  inconclusive?: string[];
  /** Stopped after its load, while it was judged: the checks judged and those not (INCONCLUSIVE, saying so). */
  judgingStopped?: { judged: string[]; notJudged: string[] };
  /** Each scenario fault and the attempts it matched. */
  faults?: FaultCoverage[];
  /** `run --load-workers`: each load worker's segment, host, counts and own loop lag. */
  loadWorkers?: LoadWorkerSummary[];
  /** The harness's own lag during the load. */
  lag?: HarnessLag;
  /** How long a router the harness started waited for a CPU during the load, or why not measured. */
  routerRunQueue?: RouterRunQueueSummary | { unavailable: string };
  /** The raw evidence kept beside the report (absent in reports written before `--evidence`). */
  evidence?: EvidenceKept;
  startedAt: string;
  durationMs: number;
  load: {
    mode: 'open' | 'closed';
    durationMs: number;
    rate?: number;
    connections?: number;
    deadlineMs: number;
    sent: number;
    dropped: number;
    /** The user stopped the load before its end. */
    interrupted: boolean;
    streams: number;
    achievedRate: number;
    byStatus: Record<string, number>;
  };
  latency: { answered: LatencySummary; ttft: LatencySummary };
  checks: CheckResult[];
  series: {
    /** Histogram of the latency of answered requests: upper bounds (ms) and counts. */
    latency: { boundsMs: number[]; counts: number[] };
    /** Time failing over added, per request that needed it (ms). */
    failoverAddedMs: number[];
    /** Client answers per second since the load started, by status class. */
    perSecond: Array<{ t: number; ok: number; clientError: number; serverError: number; none: number }>;
    providers: ProviderTimeline[];
  };
}
