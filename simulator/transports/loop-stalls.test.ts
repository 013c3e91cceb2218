import { describe, expect, it } from 'vitest';
import { recordLoopStalls } from './loop-stalls.js';
import { systemClock } from './system-clock.js';

describe('recordLoopStalls', () => {
  it('records a blocked loop as behind for about as long as it was blocked, and no more than the span asked about', async () => {
    const recorder = recordLoopStalls(10, 5);
    await new Promise((r) => setTimeout(r, 30));
    const blockedFrom = systemClock.now();
    while (systemClock.now() - blockedFrom < 300) {
      // Keep the loop busy: the recorder's timer cannot fire meanwhile.
    }
    const blockedTo = systemClock.now();
    await new Promise((r) => setTimeout(r, 30));
    const stalls = recorder.stop();
    // At least the block, less the one timer interval that may have been due just before it.
    expect(stalls.behindMs(blockedFrom - 20, blockedTo + 20)).toBeGreaterThanOrEqual(300 - 10);
    // Never more than the span asked about.
    expect(stalls.behindMs(blockedFrom + 100, blockedFrom + 200)).toBeLessThanOrEqual(100);
    expect(stalls.behindMs(blockedFrom + 100, blockedFrom + 200)).toBeGreaterThan(0);
    expect(stalls.behindMs(blockedTo, blockedFrom)).toBe(0);
  });
});
