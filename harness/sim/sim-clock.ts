import type { Clock } from '../../simulator/index.js';
import { timerSleep } from './timer-sleep.js';

/** 2026-01-01T00:00:00Z: where simulated runs start unless told otherwise (a UTC midnight). */
export const SIMULATED_EPOCH = Date.UTC(2026, 0, 1);

interface Event {
  at: number;
  seq: number;
  fire: (() => void) | null;
}

/** The one step a discrete-event loop needs from a clock: fire the next due event, if any. */
export interface EventSource {
  now(): number;
  /** Moves time to the earliest pending event and fires it; false when nothing is pending. */
  step(): boolean;
  /** Events not yet fired. */
  pending(): number;
}

/** A clock for simulated time: time moves only when `step` fires the next event. */
export interface SimClock extends Clock, EventSource {
  setTimer(ms: number, fire: () => void): () => void;
  /** Events fired so far. */
  fired(): number;
}

/**
 * A discrete-event clock: a binary heap of timers ordered by time, then by the order they were
 * set, so that the same program fires the same events in the same order every time. Sleeping
 * costs nothing: `step` jumps straight to the next event.
 */
export function createSimClock(startAt = SIMULATED_EPOCH): SimClock {
  let now = startAt;
  let seq = 0;
  let fired = 0;
  let live = 0;
  const heap: Event[] = [];
  const before = (a: Event, b: Event) => a.at < b.at || (a.at === b.at && a.seq < b.seq);
  // Sifts move the hole, not the element (one write a level, no swap).
  const push = (e: Event) => {
    let i = heap.length;
    heap.push(e);
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = heap[p]!;
      if (!before(e, parent)) break;
      heap[i] = parent;
      i = p;
    }
    heap[i] = e;
  };
  const pop = (): Event | undefined => {
    const top = heap[0];
    const last = heap.pop();
    const n = heap.length;
    if (n > 0 && last) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const m = r < n && before(heap[r]!, heap[l]!) ? r : l;
        const child = heap[m]!;
        if (!before(child, last)) break;
        heap[i] = child;
        i = m;
      }
      heap[i] = last;
    }
    return top;
  };
  const setTimer = (ms: number, fire: () => void): (() => void) => {
    const e: Event = { at: now + Math.max(0, ms), seq: seq++, fire };
    push(e);
    live++;
    return () => {
      if (e.fire === null) return;
      e.fire = null;
      live--;
    };
  };
  return {
    now: () => now,
    setTimer,
    sleep: timerSleep(setTimer),
    step() {
      for (;;) {
        const e = pop();
        if (!e) return false;
        if (e.fire === null) continue;
        const fire = e.fire;
        e.fire = null;
        live--;
        fired++;
        if (e.at > now) now = e.at;
        fire();
        return true;
      }
    },
    pending: () => live,
    fired: () => fired,
  };
}
