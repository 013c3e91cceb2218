import { HarnessError } from '../errors.js';
import type { EventSource } from './sim-clock.js';

// The real event loop, captured when this module loads (before any fake timers are installed):
// the only real scheduling simulated time uses. A turn lets every continuation the last event
// started run to its next wait on simulated time.
const realSetImmediate = globalThis.setImmediate;
const realSetTimeout = globalThis.setTimeout;

/** Empty turns before waiting a little real time for real work (a module import, a file read). */
const BUSY_TURNS = 50;
/** Real pauses of 10 ms allowed in a row before a run is called stuck (about 10 s). */
const IDLE_PAUSES = 1000;

/** Events fired between two calls of `onSteps` (a progress report costs one call, not one per event). */
const STEPS_PER_REPORT = 256;

/**
 * Runs `work` in simulated time: lets every continuation run, then fires the next event, and so
 * on, until `work` settles. Time never waits on the wall clock. When nothing is scheduled and
 * `work` is still pending, the code is waiting on something real (a module import, say): that is
 * given real time, and after about 10 s of it the run fails with a message rather than hanging.
 * Real work while events are pending is not detected: code under test must not do real I/O
 * mid-run, or simulated time races ahead of it. `onSteps` is called every few hundred events
 * (for progress: it must not schedule anything on the simulated clock).
 */
export function drive<T>(
  clock: EventSource,
  work: Promise<T>,
  idlePauses = IDLE_PAUSES,
  onSteps?: () => void,
): Promise<T> {
  // One real turn per simulated event, and nothing else allocated per event: a plain callback on
  // the real `setImmediate` queue (Node drains every microtask, hence every continuation the last
  // event started, before the next immediate runs), not a promise awaited per turn.
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    work.then(
      () => (settled = true),
      () => (settled = true),
    );
    let idle = 0;
    let steps = 0;
    const tick = (): void => {
      if (settled) {
        resolve(work);
        return;
      }
      let stepped: boolean;
      try {
        stepped = clock.step();
      } catch (error) {
        reject(error);
        return;
      }
      if (stepped) {
        idle = 0;
        if (onSteps && ++steps % STEPS_PER_REPORT === 0) onSteps();
        realSetImmediate(tick);
        return;
      }
      idle++;
      if (idle <= BUSY_TURNS) {
        realSetImmediate(tick);
        return;
      }
      if (idle > BUSY_TURNS + idlePauses) {
        reject(
          new HarnessError(
            'HARNESS_SIMULATION_STUCK',
            'Simulated time is stuck: the code under test has waited about 10 s of real time on something other than simulated time (real I/O, or a timer the simulated clock does not own), with no simulated event left to fire.',
          ),
        );
        return;
      }
      realSetTimeout(tick, 10);
    };
    realSetImmediate(tick);
  });
}
