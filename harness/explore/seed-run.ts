import type { Verdict } from '../checks/types.js';

/** One check's verdict in one run, as a worker sends it back (no evidence: a sweep keeps counts). */
export interface SeedCheck {
  id: string;
  verdict: Verdict;
  figure: string;
  reason?: string;
}

/** One job of a sweep: a scenario file at a seed. */
export interface SeedJob {
  file: string;
  seed: number;
}

/** What one (scenario, seed) run gave: its verdicts, or the error that stopped it (a crash, a timeout). */
export type SeedRun = SeedJob & { wallMs: number } & (
    | {
        ok: true;
        scenario: string;
        verdict: 'pass' | 'fail' | 'inconclusive' | 'interrupted';
        checks: SeedCheck[];
        /** Why the run is inconclusive, one line each. */
        inconclusive?: string[];
      }
    | { ok: false; error: string }
  );
