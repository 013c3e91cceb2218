import { describe, expect, it } from 'vitest';
import { admittedChat, stageEngine } from '../../../test/helpers/engine-stages.js';
import { chatCall } from '../../../test/helpers/scenario.js';
import { Recorder } from '../recorder.js';
import type { Reply } from '../reply.js';
import { createVocabulary } from '../vocabulary.js';
import { answer } from './answer.js';

const VOCABULARY = createVocabulary(1);

function answered(call: ReturnType<typeof chatCall>, yaml?: string, seed?: number) {
  const { engine, clock } = stageEngine(yaml, seed);
  const attempt = admittedChat(engine, call, clock.now());
  return { engine, clock, attempt, reply: answer(attempt, VOCABULARY, new Recorder(engine.ledger)) };
}

const bodyOf = (reply: Reply) => reply.steps.map((s) => (s.op === 'write' ? s.data : '')).join('');

describe('answer', () => {
  it('answers 200 in the vendor shape with its rate-limit headers, and plans the ledger row', () => {
    const { engine, attempt, reply } = answered(chatCall('openai'));
    expect(reply.status).toBe(200);
    expect(reply.headers).toMatchObject({
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(bodyOf(reply))),
      'x-ratelimit-remaining-requests': '2',
      date: 'Thu, 01 Jan 2026 00:00:00 GMT',
    });
    const usage = JSON.parse(bodyOf(reply)).usage;
    expect(usage.prompt_tokens).toBe(attempt.tokensIn);
    expect(engine.ledger.row(0)).toMatchObject({
      status: 200,
      tokensIn: attempt.tokensIn,
      tokensOut: usage.completion_tokens,
    });
  });

  it('answers the same bytes from the same seed', () => {
    const a = answered(chatCall('anthropic', { stream: true }), undefined, 3).reply;
    const b = answered(chatCall('anthropic', { stream: true }), undefined, 3).reply;
    expect(b.headers).toEqual(a.headers);
    expect(b.steps).toEqual(a.steps);
  });

  it('cuts the completion at max_tokens, finishing for length', () => {
    const { reply } = answered(chatCall('openai', { maxTokens: 1 }));
    const body = JSON.parse(bodyOf(reply));
    expect(body.choices[0].finish_reason).toBe('length');
    expect(body.usage.completion_tokens).toBe(1);
  });

  it('waits the time to first token a latency fault sets before the body', () => {
    const yaml = `
version: 1
name: stage-answer
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-openai }] }
faults:
  - { id: slow, kind: latency, match: { provider: openai }, ttft: 2s }
`;
    const { engine, reply } = answered(chatCall('openai'), yaml);
    expect(reply.steps[0]).toEqual({ op: 'wait', ms: 2000 });
    expect(engine.ledger.row(0)!.faults).toEqual(['slow']);
  });

  it('settles the output tokens into the quota and completes the row when the reply finishes', () => {
    const { engine, clock, reply } = answered(chatCall('anthropic'));
    const outputLeft = () =>
      engine.byId
        .get('anthropic')!
        .quota.snapshot(clock.now())
        .find((b) => b.view.rule.metric === 'output-tokens')!.view.remaining;
    expect(outputLeft()).toBe(100_000);
    reply.onHead(clock.now() + 5);
    reply.onFinish(clock.now() + 10, { aborted: false, tokensDelivered: 16 });
    expect(outputLeft()).toBe(100_000 - 16);
    expect(engine.ledger.row(0)).toMatchObject({ end: 'complete', tokensOut: 16 });
  });
});
