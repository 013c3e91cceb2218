import type { HeaderGetter, LimitSignal } from '../core/signals.js';

interface Item {
  name: string;
  params: Record<string, string>;
}

// A small reader for the Structured-Field lists the draft uses: `"name";r=1;t=2, "other";q=3`.
function parseList(text: string): Item[] | undefined {
  const items: Item[] = [];
  for (const raw of text.split(',')) {
    const parts = raw
      .trim()
      .split(';')
      .map((p) => p.trim());
    const head = parts.shift();
    if (!head || !/^"[^"]*"$|^[A-Za-z*][\w.:/*-]*$/.test(head)) return undefined;
    const params: Record<string, string> = {};
    for (const p of parts) {
      const [k, v] = p.split('=');
      if (!k) return undefined;
      params[k.trim()] = (v ?? '?1').trim().replace(/^"|"$/g, '');
    }
    items.push({ name: head.replace(/^"|"$/g, ''), params });
  }
  return items;
}

const nonNeg = (t: string | undefined) => (t !== undefined && /^\d+$/.test(t) ? Number(t) : undefined);

/**
 * Decodes the IETF RateLimit fields in the -10 syntax (`RateLimit: "p";r=50;t=30` with
 * `RateLimit-Policy: "p";q=100;w=60`), the -07 dictionary (`limit=…, remaining=…, reset=…`) and
 * the -06 separate fields. Request-unit policies only; the tightest one wins. Malformed fields are
 * ignored, as the draft requires.
 * @see https://datatracker.ietf.org/doc/draft-ietf-httpapi-ratelimit-headers/
 */
export function decodeIetfRateLimit(get: HeaderGetter, now: number): { requests?: LimitSignal } {
  const rl = get('ratelimit');
  if (rl !== undefined) {
    if (/\blimit=/.test(rl)) {
      const d = Object.fromEntries(
        rl.split(',').map((p) =>
          p
            .trim()
            .split('=')
            .map((x) => x.trim()),
        ),
      );
      const reset = nonNeg(d.reset);
      return {
        requests: {
          limit: nonNeg(d.limit),
          remaining: nonNeg(d.remaining),
          resetAt: reset === undefined ? undefined : now + reset * 1000,
        },
      };
    }
    const items = parseList(rl);
    if (!items) return {};
    const policies = new Map((parseList(get('ratelimit-policy') ?? '') ?? []).map((i) => [i.name, i.params]));
    let best: LimitSignal | undefined;
    for (const item of items) {
      const policy = policies.get(item.name);
      const unit = policy?.qu;
      if (unit !== undefined && unit !== 'requests') continue;
      const remaining = nonNeg(item.params.r);
      if (remaining === undefined) continue;
      const t = nonNeg(item.params.t);
      const s: LimitSignal = {
        limit: nonNeg(policy?.q),
        remaining,
        resetAt: t === undefined ? undefined : now + t * 1000,
      };
      if (!best || remaining < best.remaining!) best = s;
    }
    return best ? { requests: best } : {};
  }
  const remaining = nonNeg(get('ratelimit-remaining'));
  if (remaining === undefined) return {};
  const reset = nonNeg(get('ratelimit-reset'));
  return {
    requests: {
      limit: nonNeg(get('ratelimit-limit')),
      remaining,
      resetAt: reset === undefined ? undefined : now + reset * 1000,
    },
  };
}
