/**
 * A small LLM router written only against `fetch`, as one might write it for a Worker: it tries
 * OpenAI-compatible providers in order, skips a provider until the wait its 429 announced has
 * passed (Retry-After or retry-after-ms), fails over on 429 and 5xx, and gives up with 503 when
 * every provider is waiting. It knows nothing of throttlelab beyond the THROTTLELAB_* variables
 * naming the providers; its waits are plain `Date.now()` comparisons.
 */
export function createFetchRouter(env: Record<string, string>): { fetch(request: Request): Promise<Response> } {
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
      };
    });
  const waitOf = (res: Response): number => {
    const ms = Number(res.headers.get('retry-after-ms'));
    if (Number.isFinite(ms) && ms > 0) return ms;
    const s = Number(res.headers.get('retry-after'));
    return Number.isFinite(s) && s > 0 ? s * 1000 : 1000;
  };
  return {
    async fetch(request) {
      const body = (await request.json()) as Record<string, unknown>;
      const correlation = request.headers.get('x-throttlelab-correlation-id');
      let last: Response | undefined;
      for (const p of providers) {
        if (Date.now() < p.until) continue;
        const res = await fetch(`${p.baseUrl}/chat/completions`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${p.key}`,
            ...(correlation ? { 'x-throttlelab-correlation-id': correlation } : {}),
          },
          body: JSON.stringify({ ...body, model: p.model }),
          signal: request.signal,
        });
        if (res.ok) {
          const headers = new Headers(res.headers);
          headers.set('x-throttlelab-provider', p.id);
          return new Response(res.body, { status: res.status, headers });
        }
        await res.text().catch(() => '');
        if (res.status === 429 || res.status >= 500) {
          p.until = Date.now() + waitOf(res);
          last = res;
          continue;
        }
        return new Response(JSON.stringify({ error: { message: `upstream ${res.status}`, type: 'upstream' } }), {
          status: res.status,
          headers: { 'content-type': 'application/json' },
        });
      }
      const soonest = Math.min(...providers.map((p) => p.until));
      return new Response(
        JSON.stringify({ error: { message: 'every provider is rate limited', type: 'rate_limit', code: null } }),
        {
          status: 503,
          headers: {
            'content-type': 'application/json',
            'retry-after': String(Math.max(1, Math.ceil((soonest - Date.now()) / 1000))),
            ...(last ? { 'x-last-upstream-status': String(last.status) } : {}),
          },
        },
      );
    },
  };
}
