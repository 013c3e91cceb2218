import type { IncomingMessage, ServerResponse } from 'node:http';

/** Sends a JSON answer. */
export function json(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    ...headers,
  });
  res.end(body);
}

/** Sends an error in OpenAI's shape. */
export function openAIError(
  res: ServerResponse,
  status: number,
  message: string,
  type: string,
  code: string | null,
  headers: Record<string, string> = {},
): void {
  json(res, status, { error: { message, type, param: null, code } }, headers);
}

/**
 * Reads a request body up to `max` bytes. Past it, it answers at once (`tooLarge`) rather than
 * reading on: an endless chunked body must not be read for ever. The rest is drained for a
 * moment (so the client can read the 413 before the connection closes), then the socket is cut.
 */
export function readBody(req: IncomingMessage, max: number): Promise<{ text: string; tooLarge: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size <= max) {
        chunks.push(c);
        return;
      }
      req.off('data', onData);
      req.off('end', onEnd);
      req.resume();
      const cut = setTimeout(() => req.destroy(), 1000);
      req.once('close', () => clearTimeout(cut));
      resolve({ text: '', tooLarge: true });
    };
    const onEnd = () => resolve({ text: Buffer.concat(chunks).toString('utf8'), tooLarge: false });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', reject);
  });
}

// A client that went away mid-request is not an error worth a log line (a thousand of them would
// flood the log); it is counted in the requests metric as a 499.
/** Whether an error only means the client went away. */
export function clientGone(req: IncomingMessage, res: ServerResponse, error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException)?.code;
  return (
    res.destroyed || req.destroyed || code === 'ECONNRESET' || code === 'EPIPE' || code === 'ERR_STREAM_PREMATURE_CLOSE'
  );
}

/** Whether a content type is JSON. */
export const isJson = (contentType: string | undefined) => /^application\/json\s*(;|$)/i.test(contentType ?? '');

/** The abort reason of requests cut by a stop. */
export const SHUTDOWN = Symbol('router-shutdown');
/** The stream error event a stop ends a live stream with. */
export const SHUTDOWN_FRAME = JSON.stringify({
  error: { message: 'The router is shutting down.', type: 'service_unavailable', param: null, code: 'router_shutdown' },
});

/** Answers 503: the router is stopping. */
export function shuttingDown(res: ServerResponse): void {
  if (res.headersSent || res.destroyed) return;
  openAIError(res, 503, 'The router is shutting down.', 'service_unavailable', 'router_shutdown', {
    connection: 'close',
    'retry-after': '1',
  });
}
