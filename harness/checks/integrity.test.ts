import { describe, expect, it } from 'vitest';
import { contentDigest } from '../../simulator/index.js';
import { input, outcome, row, world } from '../../test/helpers/evidence.js';
import { checkAnswerIntegrity } from './answer-integrity.js';
import { checkContentIntegrity } from './content-integrity.js';

const text = (t: string) => ({ contentDigest: contentDigest(t), contentChars: t.length });
const ok = (id: string, t = 'Alpha beta.', p: Parameters<typeof row>[0] = {}) =>
  row({ correlationId: id, ...text(t), ...p });

describe('checkAnswerIntegrity', () => {
  it('fails a 2xx no attempt produced: none at all (canned), or only failed ones', () => {
    const r = checkAnswerIntegrity(
      input({
        rows: [
          ok('a'),
          row({ correlationId: 'c', status: 429 }),
          row({ correlationId: 'c', status: 200, end: 'truncated' }),
        ],
        outcomes: [outcome({ id: 'a' }), outcome({ id: 'b' }), outcome({ id: 'c' })],
      }),
    );
    expect(r).toMatchObject({ verdict: 'fail', violations: 2, details: { unbacked: 2, substituted: 0 } });
    expect(r.evidence.map((e) => e.detail)).toEqual([
      'answered 200 with no attempt at any provider (a canned or cached answer)',
      'answered 200, but none of its 2 attempts succeeded upstream (openai 429, openai 200 truncated)',
    ]);
  });
  it('fails an answer from another model than the pinned one, or than an alias allows', () => {
    const scenario = world('expect: { aliases: { fast: [anthropic] } }\n');
    const r = checkAnswerIntegrity(
      input({
        scenario,
        rows: [
          ok('p', 'x', { model: 'gpt-4o' }),
          ok('f'),
          ok('g', 'y', { provider: 'anthropic', model: 'claude-haiku-4-5' }),
        ],
        outcomes: [
          outcome({ id: 'p', model: 'openai/gpt-4o-mini' }),
          outcome({ id: 'f', model: 'fast' }),
          outcome({ id: 'g', model: 'fast' }),
        ],
      }),
    );
    expect(r).toMatchObject({ verdict: 'fail', details: { unbacked: 0, substituted: 2 } });
    expect(r.evidence.map((e) => e.detail)).toEqual([
      'asked for openai/gpt-4o-mini (openai/gpt-4o-mini); answered from openai/gpt-4o',
      'asked for fast (anthropic); answered from openai/gpt-4o-mini',
    ]);
  });
  it('passes answers backed for the model asked (auto, pinned, a served model name), not only on the last attempt', () => {
    const r = checkAnswerIntegrity(
      input({
        rows: [row({ correlationId: 'a', status: 500 }), ok('a'), ok('b'), ok('c')],
        outcomes: [
          outcome({ id: 'a', model: 'auto' }),
          outcome({ id: 'b', model: 'openai/gpt-4o-mini' }),
          outcome({ id: 'c', model: 'gpt-4o-mini', stream: true, streamEnd: 'finish' }),
          // Not an answer a client accepted: not judged.
          outcome({ id: 'd', stream: true, streamEnd: 'error-event' }),
          outcome({ id: 'e', status: 503 }),
        ],
      }),
    );
    expect(r).toMatchObject({ verdict: 'pass', details: { judged: 3 } });
  });
  it('skips with nothing to judge, or when no attempt can be followed', () => {
    expect(checkAnswerIntegrity(input({ outcomes: [outcome({ status: 503 })] })).verdict).toBe('skip');
    expect(checkAnswerIntegrity(input({ rows: [row()], outcomes: [outcome()] })).figure).toMatch(
      /^cannot follow 1 answer: no attempt carried a correlation id/,
    );
  });
});

describe('checkContentIntegrity', () => {
  const whole = 'One two three four.';
  it('fails a splice of two answers, a duplicated frame, a missing one and altered text', () => {
    const r = checkContentIntegrity(
      input({
        rows: [
          ok('s', 'One two', { end: 'truncated' }),
          ok('s', whole, { provider: 'anthropic', model: 'claude-haiku-4-5' }),
          ok('d', whole),
          ok('m', whole),
          ok('x', whole),
        ],
        outcomes: [
          outcome({ id: 's', stream: true, streamEnd: 'done', ...text('One two' + whole) }),
          outcome({ id: 'd', stream: true, streamEnd: 'done', ...text('One two two three four.') }),
          outcome({ id: 'm', stream: true, streamEnd: 'done', ...text('One three four.') }),
          outcome({ id: 'x', ...text('One two three fuor.') }),
        ],
      }),
    );
    expect(r).toMatchObject({ verdict: 'fail', violations: 4 });
    expect(r.evidence.map((e) => e.detail)).toEqual([
      'client received 26 chars, more than any one attempt produced (spliced or duplicated frames?); anthropic produced 19 (2 attempts)',
      'client received 23 chars, more than the provider produced (a duplicated frame?); openai produced 19 (1 attempt)',
      'client received 15 chars, less than the provider produced (a missing frame?); openai produced 19 (1 attempt)',
      'client received 19 chars, as long as the provider produced, but different text; openai produced 19 (1 attempt)',
    ]);
  });
  it('passes the text of the attempt that answered, after a failover, and an answer with no text for one that produced none', () => {
    const r = checkContentIntegrity(
      input({
        rows: [ok('a', 'Lost half', { end: 'truncated' }), ok('a', whole, { provider: 'anthropic' }), ok('e', '')],
        outcomes: [
          outcome({ id: 'a', stream: true, streamEnd: 'done', ...text(whole) }),
          outcome({ id: 'e', contentDigest: null }),
        ],
      }),
    );
    expect(r).toMatchObject({ verdict: 'pass', details: { judged: 2 } });
  });
  it('skips when no answer can be traced to a provider that produced text', () => {
    expect(checkContentIntegrity(input({ rows: [], outcomes: [outcome()] })).verdict).toBe('skip');
  });
});

describe('checkStreamIntegrity reads streams as clients do', () => {
  it('passes a stream that ended with a finish_reason and no [DONE], or with no SSE content type, warning of each', async () => {
    const { checkStreamIntegrity } = await import('./stream-integrity.js');
    const r = checkStreamIntegrity(
      input({
        outcomes: [
          outcome({ id: 'a', stream: true, streamEnd: 'finish', contentType: 'text/event-stream' }),
          outcome({ id: 'b', stream: true, streamEnd: 'done', contentType: null }),
          outcome({ id: 'c', stream: true, streamEnd: 'done', contentType: 'application/json' }),
        ],
      }),
    );
    expect(r).toMatchObject({ verdict: 'pass', violations: 0, details: { finishWithoutDone: 1, notEventStream: 2 } });
    expect(r.figure).toBe(
      '0 of 3 streams ended silently (0 ended with an error event); warning: 1 stream ended with a finish_reason but no [DONE] (complete; a warning); 2 streams not labelled text/event-stream (content type: none, application/json)',
    );
  });
  it('fails a plain body answering a stream request as a silent end, saying so', async () => {
    const { checkStreamIntegrity } = await import('./stream-integrity.js');
    const r = checkStreamIntegrity(
      input({ outcomes: [outcome({ stream: true, streamEnd: 'silent', frames: 0, contentType: 'application/json' })] }),
    );
    expect(r.evidence[0]!.detail).toBe(
      'a stream was asked for; the 2xx body held no SSE frame (content type application/json)',
    );
  });
});
