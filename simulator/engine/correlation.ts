/** The marker a client puts in prompt text so correlation survives request translation: `[tl:<id>]`. */
export const CORRELATION_MARKER_RE = /\[tl:([A-Za-z0-9._:-]{1,100})\]/;

/** Formats a correlation marker for prompt text. */
export function formatCorrelationMarker(id: string): string {
  return `[tl:${id}]`;
}

/** The default request header carrying a correlation id. */
export const CORRELATION_HEADER = 'x-throttlelab-correlation-id';

/** Finds a correlation id in the first configured header that has one, else in the prompt's marker. */
export function findCorrelationId(
  headers: Record<string, string | undefined>,
  names: readonly string[],
  promptText: string | undefined,
): string | null {
  for (const name of names) {
    const value = headers[name];
    if (value) return value.slice(0, 200);
  }
  if (promptText) {
    const m = CORRELATION_MARKER_RE.exec(promptText);
    if (m) return m[1]!;
  }
  return null;
}
