import type { ErrorAnswer } from '../load/client-outcome.js';

/** Which vendor's error shape an inbound API owes its clients: Anthropic's on Messages, OpenAI's elsewhere. */
export function errorShapeOf(path: string): 'anthropic' | 'openai' {
  return /\/messages\/?$/.test(path) ? 'anthropic' : 'openai';
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * What keeps an error answer from parsing as its API's SDKs parse errors, in words; null when
 * nothing does. OpenAI's SDKs read `error.message`, `error.type` and `error.code` (a string or
 * null) of a JSON body; Anthropic's read `type: 'error'` and `error.type`, `error.message`.
 * @see https://platform.openai.com/docs/guides/error-codes
 * @see https://docs.anthropic.com/en/api/errors
 */
export function errorShapeFault(a: ErrorAnswer): string | null {
  const shape = errorShapeOf(a.path);
  const start = JSON.stringify(a.body.slice(0, 60));
  let body: unknown;
  try {
    body = JSON.parse(a.body);
  } catch {
    return `${a.path}: the body is not JSON (${a.headers['content-type'] ?? 'no content type'}: ${start})`;
  }
  const e = isObject(body) ? body.error : undefined;
  if (shape === 'anthropic') {
    if (
      !isObject(body) ||
      body.type !== 'error' ||
      !isObject(e) ||
      typeof e.type !== 'string' ||
      typeof e.message !== 'string'
    )
      return `${a.path}: not Anthropic's {type:'error',error:{type,message}} (${start})`;
    return null;
  }
  if (
    !isObject(e) ||
    typeof e.message !== 'string' ||
    typeof e.type !== 'string' ||
    !('code' in e) ||
    (e.code !== null && typeof e.code !== 'string')
  )
    return `${a.path}: not OpenAI's {error:{message,type,code}} (${start})`;
  return null;
}
