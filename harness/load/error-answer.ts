/** An error answer as the client got it, whole enough to judge its shape and what it discloses. */
export interface ErrorAnswer {
  /** The path the request was sent to (`/v1/chat/completions`): which API's error shape the answer owes. */
  path: string;
  /** Every response header, by lower-case name. */
  headers: Record<string, string>;
  /** The body, at most its first `MAX_ERROR_BODY` characters. */
  body: string;
}

/** A Node-style header object's entries (a repeated header joined as HTTP joins it). */
export function headerEntries(
  headers: Readonly<Record<string, string | string[] | undefined>> | undefined,
): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(headers ?? {}))
    if (v !== undefined) out.push([k, Array.isArray(v) ? v.join(', ') : v]);
  return out;
}

/** How much of an error body is kept: a vendor's error is a few hundred bytes; a page of HTML is cut. */
export const MAX_ERROR_BODY = 4096;

/** Records the router's error answer (status 400 or more) on an outcome; a success records nothing. */
export function applyErrorAnswer(
  out: { status: number; errorAnswer?: ErrorAnswer },
  path: string,
  headers: Iterable<[string, string]>,
  body: string,
): void {
  if (out.status < 400) return;
  const h: Record<string, string> = {};
  for (const [k, v] of headers) h[k.toLowerCase()] = v;
  out.errorAnswer = { path, headers: h, body: body.length > MAX_ERROR_BODY ? body.slice(0, MAX_ERROR_BODY) : body };
}
