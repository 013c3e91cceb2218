import type { Readable } from 'node:stream';

/**
 * Collects a request body as UTF-8 and calls back once it has ended; past `maxBytes` it keeps
 * draining but drops the bytes and reports `tooLarge`.
 */
export function collectBody(
  req: Readable,
  maxBytes: number,
  done: (body: string, tooLarge: boolean) => void,
  failed: (error: unknown) => void,
): void {
  let first: Buffer | undefined;
  let more: Buffer[] | undefined;
  let size = 0;
  let tooLarge = false;
  req.on('data', (chunk: Buffer) => {
    if (tooLarge) return;
    size += chunk.length;
    if (size > maxBytes) {
      tooLarge = true;
      first = undefined;
      more = undefined;
    } else if (first === undefined) {
      first = chunk;
    } else {
      (more ??= [first]).push(chunk);
    }
  });
  req.on('end', () => done(more ? Buffer.concat(more).toString('utf8') : (first?.toString('utf8') ?? ''), tooLarge));
  req.on('error', failed);
}

/** Reads a request body as UTF-8, stopping (but draining) past `maxBytes`. */
export function readBody(req: Readable, maxBytes: number): Promise<{ body: string; tooLarge: boolean }> {
  return new Promise((resolve, reject) =>
    collectBody(req, maxBytes, (body, tooLarge) => resolve({ body, tooLarge }), reject),
  );
}
