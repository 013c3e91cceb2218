import type { IncomingMessage } from 'node:http';

/** Reads a request body as UTF-8, stopping (but draining) past `maxBytes`. */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<{ body: string; tooLarge: boolean }> {
  return new Promise((resolve, reject) => {
    let body = '';
    let size = 0;
    let tooLarge = false;
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      if (tooLarge) return;
      size += Buffer.byteLength(chunk);
      if (size > maxBytes) {
        tooLarge = true;
        body = '';
      } else {
        body += chunk;
      }
    });
    req.on('end', () => resolve({ body, tooLarge }));
    req.on('error', reject);
  });
}
