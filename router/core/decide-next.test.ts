import { describe, expect, it } from 'vitest';
import {
  decideNext,
  type NextInput,
  type NextSettings,
  type NextStep,
  type Selection,
  type WaitFacts,
} from './decide-next.js';
import type { Rng } from './rng.js';

const NOW = 1_000_000;
const S: NextSettings = {
  maxAttempts: 3,
  backoff: { baseMs: 200, maxMs: 5000 },
  maxWaitMs: 10_000,
  minAttemptMs: 1000,
  maxWaiting: 100,
};
const FACTS: WaitFacts = {
  waitableAt: NOW + 2000,
  availableAt: NOW + 2500,
  waiting: 0,
  ahead: 0,
  expectedRequests: () => Infinity,
};

const PENDING: Selection = { kind: 'pending' };
const paid: Selection = { kind: 'admitted', target: 'p/k/m', paid: true };
const unpaid: Selection = { kind: 'admitted', target: 'p/k/m', paid: false };
const none = (facts: Partial<WaitFacts> = {}): Selection => ({ kind: 'none', facts: { ...FACTS, ...facts } });

interface Row {
  name: string;
  selection: Selection;
  attempts?: number;
  aborted?: boolean;
  now?: number;
  deadlineAt?: number;
  expected: NextStep;
  /** Draws expected from the Rng (each 0.5): the backoff's jitter, only for a wait after failed attempts. */
  draws?: number;
}

const TABLE: Row[] = [
  {
    name: 'asks for selection for the first attempt',
    selection: PENDING,
    expected: { kind: 'select', extra: false },
  },
  {
    name: 'asks for selection paid from the retry budget given a failed attempt',
    selection: PENDING,
    attempts: 1,
    expected: { kind: 'select', extra: true },
  },
  {
    name: 'fails client_closed given the client went away, before any other check',
    selection: PENDING,
    aborted: true,
    now: NOW + 30_000,
    attempts: 3,
    expected: { kind: 'fail', failure: 'client_closed' },
  },
  {
    name: 'fails deadline_exceeded given under a millisecond left (a timer may fire that early)',
    selection: PENDING,
    now: NOW + 29_999.5,
    attempts: 3,
    expected: { kind: 'fail', failure: 'deadline_exceeded' },
  },
  {
    name: 'asks for selection given just over a millisecond left',
    selection: PENDING,
    now: NOW + 29_998.5,
    expected: { kind: 'select', extra: false },
  },
  {
    name: 'fails max_attempts given the attempts are spent, before selection',
    selection: PENDING,
    attempts: 3,
    expected: { kind: 'fail', failure: 'max_attempts' },
  },
  {
    name: 'fails max_attempts given the attempts are spent, whatever selection found',
    selection: paid,
    attempts: 3,
    expected: { kind: 'fail', failure: 'max_attempts' },
  },
  {
    name: 'attempts the target its circuits admitted',
    selection: paid,
    attempts: 1,
    expected: { kind: 'attempt', target: 'p/k/m' },
  },
  {
    name: 'fails retry_budget given an admitted extra attempt the budget cannot pay for',
    selection: unpaid,
    attempts: 1,
    expected: { kind: 'fail', failure: 'retry_budget' },
  },
  {
    name: 'waits for the earliest candidate with no backoff and no draw before the first attempt',
    selection: none(),
    expected: { kind: 'wait', waitMs: 2000 },
  },
  {
    name: 'waits the backoff for one failed attempt given a candidate ready sooner',
    selection: none({ waitableAt: NOW + 50 }),
    attempts: 1,
    // Full jitter over [100, 200] at 0.5.
    expected: { kind: 'wait', waitMs: 150 },
    draws: 1,
  },
  {
    name: 'waits the doubled backoff for two failed attempts',
    selection: none({ waitableAt: NOW }),
    attempts: 2,
    expected: { kind: 'wait', waitMs: 300 },
    draws: 1,
  },
  {
    name: 'waits for the earliest candidate given it comes later than the backoff',
    selection: none(),
    attempts: 1,
    expected: { kind: 'wait', waitMs: 2000 },
    draws: 1,
  },
  {
    name: 'waits the base backoff given a probe in flight makes the earliest time now',
    selection: none({ waitableAt: NOW }),
    expected: { kind: 'wait', waitMs: 200 },
  },
  {
    name: 'waits for a probe in flight only as long as still leaves time for an attempt',
    selection: none({ waitableAt: NOW }),
    // 1100 ms left, minAttempt 1000: 100 ms of waiting, not the base 200.
    deadlineAt: NOW + 1100,
    expected: { kind: 'wait', waitMs: 100 },
  },
  {
    name: 'fails no_capacity given a probe in flight but no time for an attempt after any wait',
    selection: none({ waitableAt: NOW }),
    deadlineAt: NOW + 1000,
    expected: { kind: 'fail', failure: 'no_capacity' },
  },
  {
    name: 'fails no_capacity given the wait is longer than maxWait',
    selection: none({ waitableAt: NOW + 10_001 }),
    expected: { kind: 'fail', failure: 'no_capacity' },
  },
  {
    name: 'waits exactly maxWait',
    selection: none({ waitableAt: NOW + 10_000 }),
    expected: { kind: 'wait', waitMs: 10_000 },
  },
  {
    name: 'fails no_capacity given nothing will ever have capacity',
    selection: none({ waitableAt: Infinity, availableAt: Infinity }),
    attempts: 1,
    expected: { kind: 'fail', failure: 'no_capacity' },
    draws: 1,
  },
  {
    name: 'fails no_capacity given the wait leaves no time for an attempt before the deadline',
    selection: none(),
    deadlineAt: NOW + 2999,
    expected: { kind: 'fail', failure: 'no_capacity' },
  },
  {
    name: 'waits given the wait leaves exactly minAttempt before the deadline',
    selection: none(),
    deadlineAt: NOW + 3000,
    expected: { kind: 'wait', waitMs: 2000 },
  },
  {
    name: 'sheds max_waiting, Retry-After at the earliest capacity, given maxWaiting requests wait already',
    selection: none({ waiting: 100 }),
    expected: { kind: 'shed', reason: 'max_waiting', retryInMs: 2500, waiting: 100 },
  },
  {
    name: 'sheds with a Retry-After of at least a second',
    selection: none({ waiting: 100, availableAt: NOW + 300 }),
    expected: { kind: 'shed', reason: 'max_waiting', retryInMs: 1000, waiting: 100 },
  },
  {
    name: 'waits given the requests ahead for its model leave capacity before the deadline',
    selection: none({ ahead: 2, expectedRequests: () => 3 }),
    expected: { kind: 'wait', waitMs: 2000 },
  },
  {
    name: 'sheds spoken_for given the requests ahead take all the capacity expected before the deadline',
    selection: none({ ahead: 3, expectedRequests: () => 3 }),
    expected: { kind: 'shed', reason: 'spoken_for', retryInMs: 2500, ahead: 3, expected: 3 },
  },
  {
    name: 'waits given a limit is unknown: unknown capacity is never spoken for',
    selection: none({ ahead: 50 }),
    expected: { kind: 'wait', waitMs: 2000 },
  },
  {
    name: 'fails no_capacity rather than shed given the wait does not fit',
    selection: none({ waiting: 100, waitableAt: NOW + 20_000 }),
    expected: { kind: 'fail', failure: 'no_capacity' },
  },
];

function counting(): Rng & { draws: number } {
  return {
    draws: 0,
    next() {
      this.draws++;
      return 0.5;
    },
  };
}

function inputOf(row: Omit<Row, 'name' | 'expected'>): NextInput {
  return {
    now: row.now ?? NOW,
    deadline: { at: row.deadlineAt ?? NOW + 30_000, startedAt: NOW - 1000 },
    aborted: row.aborted ?? false,
    attempts: row.attempts ?? 0,
    settings: S,
    selection: row.selection,
  };
}

describe('decideNext', () => {
  it.each(TABLE)('$name', (row) => {
    const rng = counting();
    expect(decideNext(inputOf(row), rng)).toEqual(row.expected);
    expect(rng.draws).toBe(row.draws ?? 0);
  });

  it('counts expected capacity from the end of the wait to the last moment an attempt fits', () => {
    const asked: Array<[number, number]> = [];
    const facts = { ahead: 1, expectedRequests: (from: number, to: number) => (asked.push([from, to]), 0) };
    const step = decideNext(inputOf({ selection: none(facts) }), counting());
    expect(step).toMatchObject({ kind: 'shed', reason: 'spoken_for' });
    expect(asked).toEqual([[NOW + 2000, NOW + 30_000 - 1000]]);
  });

  it('asks for expected capacity only given requests ahead for the model', () => {
    let asked = 0;
    const facts = { expectedRequests: () => (asked++, 0) };
    decideNext(inputOf({ selection: none(facts) }), counting());
    expect(asked).toBe(0);
  });

  it('covers every step, failure and shed reason in the table', () => {
    const seen = new Set<string>(
      TABLE.map((r) =>
        r.expected.kind === 'fail'
          ? r.expected.failure
          : r.expected.kind === 'shed'
            ? r.expected.reason
            : r.expected.kind,
      ),
    );
    const all = [
      'select',
      'attempt',
      'wait',
      'client_closed',
      'deadline_exceeded',
      'max_attempts',
      'retry_budget',
      'no_capacity',
      'max_waiting',
      'spoken_for',
    ];
    expect(all.filter((k) => !seen.has(k))).toEqual([]);
  });
});
