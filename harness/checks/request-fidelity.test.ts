import { describe, expect, it } from 'vitest';
import { input, outcome, row } from '../../test/helpers/evidence.js';
import { checkRequestFidelity, unfaithful } from './request-fidelity.js';

const asked = JSON.stringify({ mt: 64, t: 0.7, st: ['END'], sd: 3, tools: ['get_weather'], tr: ['call_1'], n: 3 });

describe('checkRequestFidelity', () => {
  it('passes an attempt carrying every parameter its client sent', () => {
    const r = checkRequestFidelity(
      input({ outcomes: [outcome({ id: 'a', request: asked })], rows: [row({ correlationId: 'a', request: asked })] }),
    );
    expect(r).toMatchObject({ verdict: 'pass', violations: 0 });
  });

  it('fails an attempt that lost the stop sequences, naming what was sent instead', () => {
    const sent = JSON.stringify({ mt: 64, t: 0.7, sd: 3, tools: ['get_weather'], tr: ['call_1'], n: 3 });
    const r = checkRequestFidelity(
      input({ outcomes: [outcome({ id: 'a', request: asked })], rows: [row({ correlationId: 'a', request: sent })] }),
    );
    expect(r.verdict).toBe('fail');
    expect(r.evidence[0]!.detail).toBe('openai (openai-chat): stop ["END"] sent as none');
  });

  it('skips with a reason when the load recorded no request parameters', () => {
    const r = checkRequestFidelity(input({ outcomes: [outcome({ id: 'a' })], rows: [row({ correlationId: 'a' })] }));
    expect(r).toMatchObject({ verdict: 'skip', reason: expect.stringMatching(/load.requests.surface/) });
  });

  it('lets a vendor without an equivalent drop it: no seed at Anthropic, no result ids at Gemini', () => {
    const client = { mt: 64, sd: 3, tr: ['call_1'], n: 3 };
    expect(unfaithful(client, { mt: 64, tr: ['call_1'], n: 2 }, 'anthropic')).toEqual([]);
    expect(unfaithful(client, { mt: 64, sd: 3, trn: 1, n: 3 }, 'gemini')).toEqual([]);
    expect(unfaithful(client, { mt: 64, sd: 3, n: 3 }, 'gemini')).toEqual(['1 tool results sent as 0']);
    expect(unfaithful({ n: 1 }, { mt: 1024, n: 1 }, 'anthropic')).toEqual([]);
    expect(unfaithful({ mt: 16, n: 1 }, { mt: 1024, n: 1 }, 'anthropic')).toEqual(['max tokens 16 sent as 1024']);
  });
});
