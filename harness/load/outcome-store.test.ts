import { describe, expect, it } from 'vitest';
import { applyErrorAnswer } from './error-answer.js';
import { applyAnswer, applyStream, pendingOutcome, StreamScanner, type ClientOutcome } from './client-outcome.js';
import { OutcomeStore } from './outcome-store.js';

const FIELDS: Array<keyof ClientOutcome> = [
  'id',
  'model',
  'stream',
  'deadlineMs',
  'scheduledAt',
  'sentAt',
  'firstByteAt',
  'firstContentAt',
  'endAt',
  'status',
  'error',
  'streamEnd',
  'detail',
  'usage',
  'servedBy',
  'retryAfter',
  'contentType',
  'contentDigest',
  'contentChars',
  'frames',
  'errorAnswer',
];

function outcomes(): ClientOutcome[] {
  const plain = pendingOutcome({ id: 'r1-0', model: 'auto', stream: false, deadlineMs: 30000 }, 1000, 1000.5);
  plain.firstByteAt = 1200.25;
  plain.status = 200;
  plain.servedBy = 'openai';
  plain.contentType = 'application/json';
  applyAnswer(
    plain,
    200,
    JSON.stringify({ choices: [{ message: { content: 'héllo' } }], usage: { prompt_tokens: 7 } }),
  );
  plain.endAt = 1300;

  const failed = pendingOutcome({ id: 'r1-17', model: 'gemini/x', stream: false, deadlineMs: 5000 }, 2000, 2001);
  failed.status = 429;
  failed.retryAfter = '12';
  failed.contentType = 'application/json';
  applyAnswer(failed, 429, '{"error":{"code":"rate_limited"}}');
  applyErrorAnswer(failed, '/v1/chat/completions', [['Retry-After', '12']], '{"error":{"code":"rate_limited"}}');
  failed.endAt = 2100;

  const stream = pendingOutcome({ id: 'r1-3', model: 'auto', stream: true, deadlineMs: 30000 }, 3000, 3000);
  stream.status = 200;
  stream.contentType = 'text/event-stream';
  const scanner = new StreamScanner();
  scanner.push('data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: {"choices":[{"finish_reason":"stop"}]}\n\n');
  stream.firstContentAt = 3050;
  applyStream(stream, scanner);
  stream.endAt = 3100;

  const plainToStream = pendingOutcome({ id: 'r1-4', model: 'auto', stream: true, deadlineMs: 30000 }, 4000, 4000);
  plainToStream.status = 200;
  const plainScanner = new StreamScanner();
  plainScanner.push('{"choices":[{"message":{"content":"x"}}]}');
  applyStream(plainToStream, plainScanner);
  plainToStream.endAt = 4100;

  // An id outside the run's numbering, no answer at all, and a digest not in formatDigest's form.
  const odd = pendingOutcome({ id: 'elsewhere-01', model: 'auto', stream: false, deadlineMs: 100 }, 5000, 5000);
  odd.error = 'client-timeout';
  odd.detail = 'AbortError: gave up';
  odd.endAt = 5200;
  const digest = pendingOutcome({ id: 'r1-5', model: 'auto', stream: false, deadlineMs: 100 }, 6000, 6000);
  digest.contentDigest = 'ABC';
  digest.contentChars = 0;
  digest.endAt = 6001;
  // Ids whose ends do not print back as numbers, and digests that look formatted but are not all exact.
  const ids = ['r1-007', 'r1-', 'r1-1234567890123456', 'r1-12a', 'r1-0', 'r1-999999999999999'].map((id, k) => {
    const o = pendingOutcome({ id, model: 'auto', stream: false, deadlineMs: 100 }, 7000 + k, 7000 + k);
    o.contentDigest = [
      '00000000000abc',
      '1fffffffffffff',
      '3fffffffffffff',
      'fffffffffffffe',
      '0000000000000G',
      '0000000000000A',
    ][k];
    o.contentChars = 3;
    o.endAt = 7100;
    return o;
  });
  return [plain, failed, stream, plainToStream, odd, digest, ...ids];
}

describe('OutcomeStore', () => {
  it('gives back every outcome field for field and, as JSON, byte for byte (key order included)', () => {
    const originals = outcomes();
    const store = new OutcomeStore();
    for (const o of originals) store.push(o);
    const views = store.views();
    expect(views).toHaveLength(originals.length);
    for (let i = 0; i < originals.length; i++) {
      expect(JSON.stringify(views[i])).toBe(JSON.stringify(originals[i]));
      for (const f of FIELDS) expect(views[i]![f], `${originals[i]!.id}.${f}`).toEqual(originals[i]![f]);
    }
    // The two stream shapes really differ in key order, so the check above can tell them apart.
    expect(Object.keys(originals[2]!).indexOf('frames')).toBeLessThan(
      Object.keys(originals[2]!).indexOf('contentDigest'),
    );
    expect(Object.keys(originals[3]!).indexOf('frames')).toBeGreaterThan(
      Object.keys(originals[3]!).indexOf('contentDigest'),
    );
  });

  it('grows past its first capacity', () => {
    const store = new OutcomeStore();
    for (let n = 0; n < 3000; n++)
      store.push({
        ...pendingOutcome({ id: `r2-${n}`, model: 'auto', stream: false, deadlineMs: 1 }, n, n),
        endAt: n + 1,
      });
    const views = store.views();
    expect(views.map((v) => v.id).slice(2997)).toEqual(['r2-2997', 'r2-2998', 'r2-2999']);
    expect(views[2500]!.endAt).toBe(2501);
  });

  it('refuses an outcome with a field it does not store', () => {
    const o = { ...pendingOutcome({ id: 'r3-0', model: 'auto', stream: false, deadlineMs: 1 }, 0, 0), replica: 1 };
    expect(() => new OutcomeStore().push(o)).toThrow(/does not store/);
  });
});
