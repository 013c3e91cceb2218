/**
 * A percent-encoded path segment decoded, or undefined where it is not valid percent-encoding
 * (`%ZZ`, a cut sequence such as `%E0%A4%A`, bytes that are not UTF-8), which
 * `decodeURIComponent` throws on: a client's mistake, answered 400, never the simulator's bug.
 */
export function decodePathSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
