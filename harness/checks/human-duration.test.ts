import { describe, expect, it } from 'vitest';
import { humanDuration } from './human-duration.js';

describe('humanDuration', () => {
  it('keeps milliseconds under a minute and uses the two largest units above', () => {
    expect(humanDuration(850.4)).toBe('850 ms');
    expect(humanDuration(59_999)).toBe('59999 ms');
    expect(humanDuration(90_000)).toBe('1 min 30 s');
    expect(humanDuration(2 * 3_600_000 + 5 * 60_000 + 7000)).toBe('2 h 5 min');
    expect(humanDuration(259_199_883)).toBe('2 d 23 h');
    expect(humanDuration(3 * 86_400_000)).toBe('3 d 0 h');
    expect(humanDuration(-25_199_849)).toBe('-6 h 59 min');
  });
});
