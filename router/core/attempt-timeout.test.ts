import { describe, expect, it } from 'vitest';
import { attemptTimeoutMs } from './attempt-timeout.js';

describe('attemptTimeoutMs', () => {
  const facts = { timeoutMs: 30_000, remainingMs: 5000, usualMs: 70, canFailOver: true };

  it('leaves half the time left for a failover when the target usually answers far sooner', () => {
    expect(attemptTimeoutMs(facts)).toBe(2500);
  });

  it('never cuts below eight times what the target usually takes', () => {
    expect(attemptTimeoutMs({ ...facts, usualMs: 400 })).toBe(3200);
    expect(attemptTimeoutMs({ ...facts, usualMs: 1000 })).toBe(5000);
  });

  it('cuts nothing with nowhere to fail over to, or nothing measured', () => {
    expect(attemptTimeoutMs({ ...facts, canFailOver: false })).toBe(5000);
    expect(attemptTimeoutMs({ ...facts, usualMs: undefined })).toBe(5000);
  });

  it('is never past the attempt timeout or the deadline', () => {
    expect(attemptTimeoutMs({ ...facts, remainingMs: 120_000 })).toBe(30_000);
    expect(attemptTimeoutMs({ ...facts, remainingMs: 0 })).toBe(0);
  });
});
