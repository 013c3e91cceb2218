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

  it('takes top_p 1 or temperature 1 dropped as faithful (the API default), not one changed or another value dropped', () => {
    // llm-gateway passes top_p only when 0 < top_p < 1: the client's 1 left out changes nothing.
    const client = JSON.stringify({ mt: 64, tp: 1, t: 1, n: 1 });
    const r = checkRequestFidelity(
      input({
        outcomes: [outcome({ id: 'a', request: client })],
        rows: [row({ correlationId: 'a', request: JSON.stringify({ mt: 64, n: 1 }) })],
      }),
    );
    expect(r).toMatchObject({ verdict: 'pass', violations: 0 });
    expect(unfaithful({ tp: 0.9, n: 1 }, { n: 1 }, 'openai-chat')).toEqual(['top_p 0.9 sent as none']);
    expect(unfaithful({ tp: 1, n: 1 }, { tp: 0.5, n: 1 }, 'openai-chat')).toEqual(['top_p 1 sent as 0.5']);
    expect(unfaithful({ t: 0.7, n: 1 }, { n: 1 }, 'anthropic')).toEqual(['temperature 0.7 sent as none']);
    expect(unfaithful({ t: 1, n: 1 }, { t: 0, n: 1 }, 'anthropic')).toEqual(['temperature 1 sent as 0']);
  });
});
