import { ApiError, GoogleGenAI } from '@google/genai';
import { afterEach, describe, expect, it } from 'vitest';
import { serve, type Served } from '../helpers/serve.js';

const SCENARIO = `
version: 1
name: sdk-gemini-cached-content
providers:
  - { id: gemini, vendor: gemini, models: [gemini-2.5-flash], keys: [{ id: main, value: sim-gemini }] }
`;

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

describe('an explicit Gemini cache named in generateContent, through @google/genai', () => {
  it('is a 403 PERMISSION_DENIED "CachedContent not found" when the name is unknown, not ignored', async () => {
    served = await serve(SCENARIO);
    const ai = new GoogleGenAI({ apiKey: 'sim-gemini', httpOptions: { baseUrl: `${served.origin}/gemini` } });
    const e = await ai.models
      .generateContent({
        model: 'gemini-2.5-flash',
        contents: 'hi',
        config: { cachedContent: 'cachedContents/never-created' },
      })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).status).toBe(403);
    const body = JSON.parse((e as ApiError).message) as { error: { status: string; message: string } };
    expect(body.error).toMatchObject({
      code: 403,
      status: 'PERMISSION_DENIED',
      message: 'CachedContent not found (or permission denied)',
    });
    // The same request without the cache is answered: only the unknown name is refused.
    const ok = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' });
    expect(ok.text).toBeTruthy();
    expect([...served.sim.ledger.rowsIterator()].map((r) => r.status)).toEqual([403, 200]);
  });
});
