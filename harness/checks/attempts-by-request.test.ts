import { describe, expect, it } from 'vitest';
import { row } from '../../test/helpers/evidence.js';
import { AttemptGroups, attemptsByRequest, forgetAttemptsByRequest } from './attempts-by-request.js';
import { groupBy } from './types.js';

describe('AttemptGroups', () => {
  const rows = [
    row({ seq: 0, correlationId: 'r-2' }),
    row({ seq: 1, correlationId: 'r-1' }),
    row({ seq: 2, correlationId: null }),
    row({ seq: 3, correlationId: 'r-2', endpoint: 'models' }),
    row({ seq: 4, correlationId: 'r-2' }),
    row({ seq: 5, correlationId: 'r-3' }),
    row({ seq: 6, correlationId: 'r-2' }),
  ];

  it('groups chat attempts by correlation id as a grouping of arrays would, in ledger order', () => {
    const groups = new AttemptGroups(rows);
    const expected = groupBy(rows, (r) =>
      r.correlationId === null || r.endpoint !== 'chat' ? undefined : r.correlationId,
    );
    expect([...groups.lists()]).toEqual([...expected.values()]);
    expect(groups.size).toBe(3);
    expect(groups.get('r-2')?.map((r) => r.seq)).toEqual([0, 4, 6]);
    expect(groups.count('r-2')).toBe(3);
    expect(groups.first('r-2')?.seq).toBe(0);
    expect(groups.last('r-2')?.seq).toBe(6);
    expect(groups.sizeOf(groups.groupOf('r-1'))).toBe(1);
  });

  it('knows nothing of a request without chat attempts', () => {
    const groups = new AttemptGroups(rows);
    expect(groups.get('r-9')).toBeUndefined();
    expect(groups.count('r-9')).toBe(0);
    expect(groups.first('r-9')).toBeUndefined();
    expect(groups.last('r-9')).toBeUndefined();
    expect(groups.groupOf('r-9')).toBe(-1);
    expect(new AttemptGroups([]).size).toBe(0);
  });

  it('keeps thousands of requests apart', () => {
    const many = Array.from({ length: 3000 }, (_, i) => row({ seq: i, correlationId: `r-${i % 2500}` }));
    const groups = new AttemptGroups(many);
    expect(groups.size).toBe(2500);
    expect(groups.get('r-10')?.map((r) => r.seq)).toEqual([10, 2510]);
    expect(groups.count('r-2499')).toBe(1);
  });

  it("tells apart ids in and out of the run's form (numbered, zero-padded, foreign, huge) as a map would", () => {
    const ids = [
      'r-7',
      'r-07',
      'r-',
      'r-x7',
      'q-7',
      'r-7',
      '7',
      'r-123456789',
      'r-1234567890',
      'r--7',
      'r-0',
      'r-00',
      'r-7',
    ];
    const mixed = ids.map((id, seq) => row({ seq, correlationId: id }));
    const groups = new AttemptGroups(mixed);
    const expected = groupBy(mixed, (r) => r.correlationId ?? undefined);
    expect([...groups.lists()]).toEqual([...expected.values()]);
    for (const id of [...ids, 'r-8', 'r-70', 'r-1234567891', 's-7'])
      expect(groups.get(id), id).toEqual(expected.get(id));
  });

  it('is made once per rows array until forgotten', () => {
    const first = attemptsByRequest(rows);
    expect(attemptsByRequest(rows)).toBe(first);
    forgetAttemptsByRequest(rows);
    expect(attemptsByRequest(rows)).not.toBe(first);
  });
});
