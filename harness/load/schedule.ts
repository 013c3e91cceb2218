import type { LoadSpec } from '../scenario/schema.js';

/**
 * Send times of an open-loop load, in ms from its start: evenly spaced at the rate of each ramp
 * stage (not bunched at the start of each second, as autocannon's `overallRate` does), stopping
 * at the duration or `maxRequests`.
 */
export function* arrivalOffsets(load: LoadSpec): Generator<number> {
  const stages = load.ramp ?? [{ rate: load.rate ?? 1, for: load.duration }];
  let stageStart = 0;
  let sent = 0;
  for (const stage of stages) {
    const end = Math.min(stageStart + stage.for, load.duration);
    if (stage.rate > 0) {
      const gap = 1000 / stage.rate;
      for (let t = stageStart; t < end; t += gap) {
        if (sent++ >= load.maxRequests) return;
        yield t;
      }
    }
    stageStart = end;
    if (stageStart >= load.duration) return;
  }
}
