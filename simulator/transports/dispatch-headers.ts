type HeaderValue = string | string[] | number | Buffer | null | undefined;

/**
 * Request headers in any form undici hands a dispatcher (an object, a flat `[name, value, ...]`
 * array, `[name, value]` pairs or an iterable of them, as a `Headers` is), as one lower-cased map;
 * repeated names are joined with `, ` as the HTTP server's parser joins them.
 */
export function dispatchHeaders(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const add = (name: unknown, value: HeaderValue) => {
    if (value === undefined || value === null) return;
    const key = String(name).toLowerCase();
    const text = Array.isArray(value) ? value.join(', ') : String(value);
    out[key] = out[key] === undefined ? text : `${out[key]}, ${text}`;
  };
  if (!headers || typeof headers !== 'object') return out;
  if (Array.isArray(headers)) {
    if (Array.isArray(headers[0]))
      for (const [name, value] of headers as Array<[unknown, HeaderValue]>) add(name, value);
    else for (let i = 0; i + 1 < headers.length; i += 2) add(headers[i], headers[i + 1] as HeaderValue);
  } else if (Symbol.iterator in headers) {
    for (const [name, value] of headers as Iterable<[unknown, HeaderValue]>) add(name, value);
  } else {
    for (const [name, value] of Object.entries(headers as Record<string, HeaderValue>)) add(name, value);
  }
  return out;
}
