import { describe, expect, it } from 'vitest';
import { Cancel as RouterCancel, NEVER_CANCELLED, toAbortSignal } from '../../router/index.js';
import { Cancel as SimulatorCancel } from '../../simulator/index.js';

// The router's and the simulator's `Cancel` stand in for an AbortController on the per-request
// path, where the order in which an abort's listeners run decides the ledger's order: each must
// do exactly what a real AbortController does, so the same script runs against all three.

interface Subject {
  signal: {
    readonly aborted: boolean;
    readonly reason: unknown;
    addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
    removeEventListener(type: 'abort', listener: () => void): void;
  };
  abort(reason?: unknown): void;
}

const SUBJECTS: Array<[string, () => Subject]> = [
  [
    'AbortController',
    () => {
      const ac = new AbortController();
      return { signal: ac.signal, abort: (r) => ac.abort(r) };
    },
  ],
  [
    'router Cancel',
    () => {
      const c = new RouterCancel();
      return { signal: c, abort: (r) => c.abort(r) };
    },
  ],
  [
    'simulator Cancel',
    () => {
      const c = new SimulatorCancel();
      return { signal: c, abort: (r) => c.abort(r) };
    },
  ],
];

/** What happens, in order, in one script run against a subject. */
function script(make: () => Subject): string[] {
  const trace: string[] = [];
  const s = make();
  const { signal } = s;
  const later = () => trace.push('later');
  const twice = () => trace.push('twice');
  const removed = () => trace.push('removed');
  signal.addEventListener('abort', () =>
    trace.push(`first sees aborted=${signal.aborted} reason=${String(signal.reason)}`),
  );
  signal.addEventListener('abort', twice);
  signal.addEventListener('abort', twice, { once: true });
  signal.addEventListener('abort', removed);
  signal.removeEventListener('abort', removed);
  signal.addEventListener('abort', () => {
    trace.push('remover');
    // Removed while the abort runs the listeners: a later one is skipped.
    signal.removeEventListener('abort', later);
    // Added while they run: Node's AbortSignal runs it too, after the others.
    signal.addEventListener('abort', () => trace.push('added during'));
  });
  signal.addEventListener('abort', later);
  signal.addEventListener('abort', () => trace.push('last'), { once: true });
  trace.push(`before aborted=${signal.aborted}`);
  s.abort('why');
  trace.push('returned');
  s.abort('again');
  signal.addEventListener('abort', () => trace.push('added after'));
  trace.push(`after reason=${String(signal.reason)}`);
  return trace;
}

describe('Cancel behaves as an AbortController', () => {
  const expected = script(SUBJECTS[0]![1]);

  it('the real AbortController runs the script as the stand-ins are expected to', () => {
    expect(expected).toEqual([
      'before aborted=false',
      'first sees aborted=true reason=why',
      'twice',
      'remover',
      'last',
      'added during',
      'returned',
      'after reason=why',
    ]);
  });

  it.each(SUBJECTS.slice(1))('%s: the same listeners, in the same order, synchronously, once', (_name, make) => {
    expect(script(make)).toEqual(expected);
  });

  it.each(SUBJECTS)('%s: aborted without a reason, the reason is an AbortError', (_name, make) => {
    const s = make();
    s.abort();
    expect(s.signal.aborted).toBe(true);
    expect(s.signal.reason).toBeInstanceOf(DOMException);
    expect((s.signal.reason as DOMException).name).toBe('AbortError');
  });

  it('NEVER_CANCELLED never aborts and keeps no listener', () => {
    const never = NEVER_CANCELLED;
    never.addEventListener('abort', () => {
      throw new Error('never runs');
    });
    never.removeEventListener('abort', () => {});
    expect(never.aborted).toBe(false);
    expect(never.reason).toBeUndefined();
    expect(Object.isFrozen(never)).toBe(true);
  });

  it('toAbortSignal gives a real AbortSignal that aborts with the Cancel, for the same reason', () => {
    const c = new RouterCancel();
    const signal = toAbortSignal(c);
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(signal.aborted).toBe(false);
    const heard: unknown[] = [];
    signal.addEventListener('abort', () => heard.push(signal.reason));
    c.abort('gone');
    expect(heard).toEqual(['gone']);
    const done = new RouterCancel();
    done.abort('before');
    expect(toAbortSignal(done).reason).toBe('before');
    const real = new AbortController().signal;
    expect(toAbortSignal(real)).toBe(real);
  });
});
