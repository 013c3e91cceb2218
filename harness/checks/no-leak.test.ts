import { describe, expect, it } from 'vitest';
import { input, outcome, world } from '../../test/helpers/evidence.js';
import type { ErrorAnswer } from '../load/client-outcome.js';
import { checkNoLeak, leakFinder } from './no-leak.js';

function parsed() {
  // The synthetic world with keys long enough to be cut into pieces.
  return world().providers.map((p) =>
    p.id === 'openai'
      ? { ...p, keys: [{ id: 'main', value: 'sk-proj-abcdefghijklmnop-9f3e' }] }
      : { ...p, keys: [{ id: 'team', org: 'acme', value: 'sk-ant-api03-zyxwvutsrqponm-77aa' }] },
  ) as ReturnType<typeof world>['providers'];
}
const own = JSON.stringify({
  error: { message: 'No provider has capacity.', type: 'service_unavailable', code: 'no_capacity' },
});
const answer = (body: string, headers: Record<string, string> = {}): ErrorAnswer => ({
  path: '/v1/chat/completions',
  headers: { 'content-type': 'application/json', ...headers },
  body,
});
const refused = (id: string, a: ErrorAnswer) => outcome({ id, status: 503, usage: null, errorAnswer: a });

describe('leakFinder', () => {
  it('names the provider whose vendor writes the organisation id (Portkey 03 r3-20: groq, not openai)', () => {
    const providers = [
      ...parsed(),
      {
        ...parsed()[0]!,
        id: 'groq',
        vendor: 'groq' as const,
        keys: [{ id: 'main', value: 'gsk-abcdefghijklmnop-12ab' }],
      },
    ];
    const find = leakFinder({ ...world(), providers });
    expect(find('Rate limit reached for model `llama` in organization `org_main` service tier')).toBe(
      `groq's organisation id "org_main"`,
    );
    expect(find('openai-organization: org-main')).toBe(`openai's organisation id "org-main"`);
    // A form no vendor here writes is still a leak, of "a provider".
    expect(find('organization org-acme')).toBe(`a provider's organisation id "org-acme"`);
  });

  const find = leakFinder({ ...world(), providers: parsed() });
  it.each([
    ['Incorrect API key provided: sk-proj-abcdefghijklmnop-9f3e.', "openai's key, whole"],
    ['key sk-proj-abcdefghij', "a piece of openai's key (14+ characters of it)"],
    ['Incorrect API key provided: sk-proj-****9f3e', "openai's key's last four characters, masked"],
    ['key ending in 77aa was refused', "anthropic's key's last four characters, masked"],
    ['Rate limit reached for gpt-4o-mini in organization org-main on requests', 'organisation id "org-main"'],
    ['your organization (acme)', null],
    ['upstream http://127.0.0.1:4010/openai/v1/chat/completions failed', 'an upstream URL'],
    ['x-request-id: req_0123456789abcdef0123', 'an upstream request id'],
    ['The server had an error while processing your request. Sorry about that!', 'own error text'],
    [own, null],
  ])('in %j finds %s', (text, what) => {
    const found = find(text);
    if (what === null) expect(found).toBeNull();
    else expect(found).toContain(what);
  });
});

describe('checkNoLeak', () => {
  const s = { ...world(), providers: parsed() };
  it('fails an answer that echoes a provider error, or an organisation id in a header', () => {
    const r = checkNoLeak(
      input({
        scenario: s,
        outcomes: [
          refused('a', answer(own)),
          refused(
            'b',
            answer(JSON.stringify({ error: { message: 'Rate limit reached for gpt-4o-mini', type: 'x', code: null } })),
          ),
          refused('c', answer(own, { 'openai-organization': 'org-main' })),
        ],
      }),
    );
    expect(r).toMatchObject({
      verdict: 'fail',
      violations: 2,
      figure: '2 of 3 error answers show something upstream-internal',
    });
    expect(r.evidence.map((e) => e.correlationId)).toEqual(['b', 'c']);
  });
  it("passes answers in the router's own words", () => {
    const r = checkNoLeak(input({ scenario: s, outcomes: [refused('a', answer(own)), refused('b', answer(own))] }));
    expect(r).toMatchObject({ verdict: 'pass', figure: 'none of 2 error answers shows anything upstream-internal' });
  });
  it('fails a stream ended with an error event that carries the provider’s error text', () => {
    const ended = (id: string, detail: string) =>
      outcome({ id, stream: true, status: 200, streamEnd: 'error-event', detail });
    const r = checkNoLeak(
      input({
        scenario: s,
        outcomes: [
          refused('a', answer(own)),
          ended(
            'b',
            '{"error":{"message":"The provider was overloaded during the stream.","code":"provider_overloaded"}}',
          ),
          ended(
            'c',
            '{"error":{"message":"The server is overloaded or not ready yet.","code":"server_is_overloaded"}}',
          ),
        ],
      }),
    );
    expect(r).toMatchObject({
      verdict: 'fail',
      violations: 1,
      figure: '1 of 3 error answers (2 of them in-stream error events) show something upstream-internal',
    });
    expect(r.evidence[0]).toMatchObject({ correlationId: 'c' });
    expect(r.evidence[0]!.detail).toMatch(/^stream's error event shows a provider's own error text/);
  });
  it('skips, saying why, when no error answer was recorded', () => {
    expect(checkNoLeak(input({ scenario: s, outcomes: [outcome()] }))).toMatchObject({
      verdict: 'skip',
      figure: 'no error answer or in-stream error event of the router was recorded to read',
    });
  });
});
