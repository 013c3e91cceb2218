// Shorter values would blank out ordinary words; real provider keys are far longer.
const MIN_SECRET_CHARS = 8;

/**
 * Builds a function that replaces every occurrence of `secrets` (the router's own provider keys)
 * in a text with `[REDACTED]`. A provider that echoes its request (headers included) into an
 * error body, or a hostile one, must not hand a client the router's key. Cheap when no secret
 * is present: one `includes` per secret.
 */
export function createRedactor(secrets: Iterable<string>): (text: string) => string {
  const values = [...new Set([...secrets].filter((s) => s.length >= MIN_SECRET_CHARS))].sort(
    (a, b) => b.length - a.length,
  );
  if (values.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const v of values) if (out.includes(v)) out = out.split(v).join('[REDACTED]');
    return out;
  };
}
