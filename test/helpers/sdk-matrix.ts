import { afterEach, describe, expect, it } from 'vitest';
import { serve, type Served } from './serve.js';

/** What a call through an SDK produced, normalised across SDKs. */
export interface SdkAnswer {
  text: string;
  inputTokens: number;
  outputTokens: number;
  finish: string;
}

/** An SDK error, normalised: its class, status, headers and message. */
export interface SdkErrorView {
  cls: string;
  status: number | undefined;
  header(name: string): string | null | undefined;
  message: string;
}

/** How to call a provider `id` of the simulator through one SDK. */
export interface CallOptions {
  maxRetries: number;
  model?: string;
  key?: string;
  /** Send a request the vendor must refuse as malformed. */
  malformed?: boolean;
}

/** The retry cell: the wait announced and what the SDK's own rule does with it. */
export type RetryRule =
  /** Retries once the announced wait is over: the gap is at least the wait. */
  | { kind: 'honours'; hint: { form: 'ms' | 'seconds' | 'http-date' | 'body'; after: string }; waitMs: number }
  /** Does not retry unless configured to (the SDK's documented default). */
  | { kind: 'no-retry' }
  /** Retries on its own schedule, ignoring a long announced wait. */
  | {
      kind: 'ignores';
      hint: { form: 'ms' | 'seconds' | 'body'; after: string };
      announcedMs: number;
      retries: CallOptions;
    };

/** One SDK against one profile: how to call it and what the vendor and the SDK must show. */
export interface SdkCase {
  sdk: string;
  /** The provider id, which is also how the scenario line names it. */
  id: string;
  /** The provider's YAML line (without faults). */
  provider: string;
  plain(s: Served, o: CallOptions): Promise<SdkAnswer>;
  stream(s: Served): Promise<SdkAnswer>;
  view(e: unknown): SdkErrorView;
  finish: string;
  rateLimit: { cls: string | RegExp; evidence: (e: SdkErrorView) => void };
  retry: RetryRule;
  overload: { status: number; cls: string | RegExp };
  /** `names: false` where the vendor's message does not name the model (Azure, DeepSeek) or the SDK cannot read it. */
  unknownModel: { status: number; cls: string | RegExp; names?: boolean };
  badKey: { status: number; cls: string | RegExp };
  malformed: { status: number; cls: string | RegExp };
}

const scenario = (c: SdkCase, faults = '') =>
  `version: 1\nname: sdk-${c.id}\nproviders:\n  - ${c.provider}\n${faults ? `faults:\n${faults}` : ''}`;

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the SDK to raise an error');
}

const clsMatches = (cls: string, want: string | RegExp) => (typeof want === 'string' ? cls === want : want.test(cls));

/**
 * The SDK matrix: for one SDK against one profile, a plain answer, a stream (text, usage, finish
 * reason), a typed 429 with the vendor's evidence, the retry delay against the wait the ledger
 * says was announced, overload, and the error bodies for an unknown model, a wrong key and a
 * malformed request. Every cell starts its own simulator.
 */
export function sdkMatrix(c: SdkCase): void {
  describe(`${c.sdk} × ${c.id}`, () => {
    let served: Served | undefined;
    afterEach(async () => {
      await served?.close();
      served = undefined;
    });
    const start = async (faults = '') => (served = await serve(scenario(c, faults)));

    it('answers a plain request with text, usage and finish reason matching the ledger', async () => {
      const s = await start();
      const a = await c.plain(s, { maxRetries: 0 });
      const row = s.sim.ledger.row(0)!;
      expect(a.text.trim().split(/\s+/)).toHaveLength(row.tokensOut);
      expect(a.outputTokens).toBe(row.tokensOut);
      expect(a.inputTokens).toBe(row.tokensIn);
      expect(a.finish).toBe(c.finish);
    });

    it('streams the text, the usage and the finish reason', async () => {
      const s = await start();
      const a = await c.stream(s);
      const row = s.sim.ledger.row(0)!;
      expect(row.stream).toBe(true);
      expect(a.text.trim().split(/\s+/)).toHaveLength(row.tokensOut);
      expect(a.outputTokens).toBe(row.tokensOut);
      expect(a.finish).toBe(c.finish);
    });

    it('raises a typed 429 carrying the vendor evidence', async () => {
      const s = await start(
        `  - { id: limit, kind: status, match: { provider: ${c.id} }, status: 429, hint: { after: 2s } }`,
      );
      const e = c.view(await failure(c.plain(s, { maxRetries: 0 })));
      expect(e.status).toBe(429);
      expect(clsMatches(e.cls, c.rateLimit.cls), `class ${e.cls}`).toBe(true);
      c.rateLimit.evidence(e);
      expect(s.sim.ledger.size).toBe(1);
    });

    const r = c.retry;
    if (r.kind === 'honours') {
      it(`retries no sooner than the announced wait (${r.hint.form} ${r.hint.after}), as the ledger shows`, async () => {
        const s = await start(
          `  - { id: once, kind: status, match: { provider: ${c.id}, firstN: 1 }, status: 429, hint: { form: ${r.hint.form}, after: ${r.hint.after} } }`,
        );
        await c.plain(s, { maxRetries: 1 });
        const [first, second] = [s.sim.ledger.row(0)!, s.sim.ledger.row(1)!];
        expect([first.status, second.status]).toEqual([429, 200]);
        expect(first.hintMs).toBeGreaterThanOrEqual(r.waitMs);
        expect(second.arrivalAt - first.firstByteAt!).toBeGreaterThanOrEqual(first.hintMs! - 5);
      });
    } else if (r.kind === 'no-retry') {
      it('does not retry a 429 by default, as the SDK documents', async () => {
        const s = await start(
          `  - { id: once, kind: status, match: { provider: ${c.id}, firstN: 1 }, status: 429, hint: { form: ms, after: 100ms } }`,
        );
        await failure(c.plain(s, { maxRetries: 2 }));
        expect(s.sim.ledger.size).toBe(1);
      });
    } else {
      it(`retries on its own backoff, ignoring an announced ${r.hint.form} wait, as the SDK documents`, async () => {
        const s = await start(
          `  - { id: once, kind: status, match: { provider: ${c.id}, firstN: 1 }, status: 429, hint: { form: ${r.hint.form}, after: ${r.hint.after} } }`,
        );
        await c.plain(s, r.retries);
        const [first, second] = [s.sim.ledger.row(0)!, s.sim.ledger.row(1)!];
        expect([first.status, second.status]).toEqual([429, 200]);
        expect(first.hintMs).toBe(r.announcedMs);
        // Far inside the announced wait: the SDK did not read it.
        expect(second.arrivalAt - first.firstByteAt!).toBeLessThan(r.announcedMs / 2);
      });
    }

    it('raises overload as its typed error', async () => {
      const s = await start(
        `  - { id: busy, kind: status, match: { provider: ${c.id} }, status: ${c.overload.status} }`,
      );
      const e = c.view(await failure(c.plain(s, { maxRetries: 0 })));
      expect(e.status).toBe(c.overload.status);
      expect(clsMatches(e.cls, c.overload.cls), `class ${e.cls}`).toBe(true);
    });

    it(`raises the vendor error for an unknown model${c.unknownModel.names === false ? '' : ', naming it'}`, async () => {
      const s = await start();
      const e = c.view(await failure(c.plain(s, { maxRetries: 0, model: 'no-such-model' })));
      expect(e.status).toBe(c.unknownModel.status);
      expect(clsMatches(e.cls, c.unknownModel.cls), `class ${e.cls}`).toBe(true);
      if (c.unknownModel.names !== false) expect(e.message).toContain('no-such-model');
    });

    it('raises the vendor error for a wrong key, recorded as unknown', async () => {
      const s = await start();
      const e = c.view(await failure(c.plain(s, { maxRetries: 0, key: 'sk-wrong-key-0000' })));
      expect(e.status).toBe(c.badKey.status);
      expect(clsMatches(e.cls, c.badKey.cls), `class ${e.cls}`).toBe(true);
      expect(s.sim.ledger.row(0)!.key).toBe('unknown');
    });

    it('raises the vendor error for a malformed request', async () => {
      const s = await start();
      const e = c.view(await failure(c.plain(s, { maxRetries: 0, malformed: true })));
      expect(e.status).toBe(c.malformed.status);
      expect(clsMatches(e.cls, c.malformed.cls), `class ${e.cls}`).toBe(true);
    });
  });
}

/** A provider line with generous quotas and five-token answers. */
export function providerLine(id: string, vendor: string, model: string, key: string, extra = ''): string {
  return `{ id: ${id}, vendor: ${vendor}, models: [${JSON.stringify(model)}], keys: [{ id: main, value: ${JSON.stringify(key)} }], quotas: [{ metric: requests, limit: 1000, per: 1m }, { metric: tokens, limit: 1000000, per: 1m }], latency: { completionTokens: 5 }${extra} }`;
}
