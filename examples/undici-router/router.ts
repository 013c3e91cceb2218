import { Readable } from 'node:stream';
import { request } from 'undici';

/**
 * A small LLM router written only against undici's `request` (no `fetch`), as a Node service
 * might be: it tries OpenAI-compatible providers in order, fails over on 429 and 5xx, and skips a
 * provider until the wait its 429 announced (retry-after-ms or Retry-After) has passed; when that
 * wait ends it lets one request through to probe, and fails the others over until the probe
 * answers. It streams answers through as they arrive, and the caller's abort reaches the upstream
 * request. It knows nothing of throttlelab beyond the THROTTLELAB_* variables naming the providers;
 * its waits are plain `Date.now()` comparisons.
 */
export function createUndiciRouter(env: Record<string, string>): { fetch(request: Request): Promise<Response> } {
  const providers = (env.THROTTLELAB_PROVIDERS ?? '')
    .split(',')
    .filter(Boolean)
    .map((id) => {
      const p = `THROTTLELAB_${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
      return {
        id,
        baseUrl: env[`${p}_BASE_URL`]!,
        key: env[`${p}_API_KEY`]!,
        model: (env[`${p}_MODELS`] ?? '').split(',')[0]!,
        until: 0,
        probing: false,
      };
    });
  const waitOf = (headers: Record<string, string | string[] | undefined>): number => {
    const ms = Number(headers['retry-after-ms']);
    if (Number.isFinite(ms) && ms > 0) return ms;
    const s = Number(headers['retry-after']);
    return Number.isFinite(s) && s > 0 ? s * 1000 : 1000;
  };
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
  return {
    async fetch(req) {
      const body = (await req.json()) as Record<string, unknown>;
      const correlation = req.headers.get('x-throttlelab-correlation-id');
      let lastStatus: number | undefined;
      for (const p of providers) {
        const now = Date.now();
        if (now < p.until || (p.until > 0 && p.probing)) continue;
        // The first request after a wait is the probe; the others go elsewhere until it answers.
        const probe = p.until > 0;
        if (probe) p.probing = true;
        let res: Awaited<ReturnType<typeof request>>;
        try {
          res = await request(`${p.baseUrl}/chat/completions`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              authorization: `Bearer ${p.key}`,
              ...(correlation ? { 'x-throttlelab-correlation-id': correlation } : {}),
            },
            body: JSON.stringify({ ...body, model: p.model }),
            signal: req.signal,
          });
        } finally {
          if (probe) p.probing = false;
        }
        if (res.statusCode < 300) {
          if (probe) p.until = 0;
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
          headers.set('x-throttlelab-provider', p.id);
          return new Response(Readable.toWeb(res.body) as ReadableStream, { status: res.statusCode, headers });
        }
        await res.body.dump();
        if (res.statusCode === 429 || res.statusCode >= 500) {
          p.until = Date.now() + waitOf(res.headers);
          lastStatus = res.statusCode;
          continue;
        }
        return json(res.statusCode, { error: { message: `upstream ${res.statusCode}`, type: 'upstream' } });
      }
      const waiting = providers.filter((p) => p.until > 0).map((p) => p.until);
      const soonest = waiting.length > 0 ? Math.min(...waiting) : Date.now() + 1000;
      return json(
        503,
        { error: { message: 'every provider is rate limited', type: 'rate_limit', code: null } },
        {
          'retry-after': String(Math.max(1, Math.ceil((soonest - Date.now()) / 1000))),
          ...(lastStatus ? { 'x-last-upstream-status': String(lastStatus) } : {}),
        },
      );
    },
  };
}
