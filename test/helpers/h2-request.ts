import type { ClientHttp2Session, IncomingHttpHeaders, IncomingHttpStatusHeader } from 'node:http2';

/** What one HTTP/2 exchange returned. */
export interface H2Answer {
  status: number;
  headers: IncomingHttpHeaders & IncomingHttpStatusHeader;
  body: Buffer;
}

/** Sends one request on an open HTTP/2 session and collects the whole answer; rejects on a stream error. */
export function h2Request(
  session: ClientHttp2Session,
  call: { method: string; url: string; headers?: Record<string, string>; body?: string },
): Promise<H2Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':method': call.method, ':path': call.url, ...call.headers });
    let headers: H2Answer['headers'] | undefined;
    const chunks: Buffer[] = [];
    stream.on('response', (h) => (headers = h));
    stream.on('data', (d: Buffer) => chunks.push(d));
    stream.on('error', reject);
    stream.on('close', () => {
      if (headers && stream.rstCode === 0)
        resolve({ status: Number(headers[':status']), headers, body: Buffer.concat(chunks) });
      else reject(new Error(`stream closed with code ${stream.rstCode}${headers ? ' after its headers' : ''}`));
    });
    stream.end(call.body);
  });
}
