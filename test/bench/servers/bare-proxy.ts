// Child process: the limit for a Node router. A bare node:http server that forwards each POST to
// one upstream with undici (the router's pool settings) and relays the answer: the same two hops
// as the router, with no logic (no parse, no choice, no retry). The upstream key is its own.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';

const upstream = process.argv[2]!; // e.g. http://127.0.0.1:1234/openai/v1
const key = process.env.BENCH_KEY ?? '';
const agent = new Agent({ connections: 256, keepAliveTimeout: 30_000, pipelining: 1 });
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    request(`${upstream}${req.url!.replace(/^\/v1/, '')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks),
      dispatcher: agent,
    }).then(
      async (up) => {
        const body = Buffer.from(await up.body.arrayBuffer());
        res.writeHead(up.statusCode, {
          'content-type': String(up.headers['content-type'] ?? 'application/json'),
          'content-length': String(body.length),
        });
        res.end(body);
      },
      () => {
        res.writeHead(502).end();
      },
    );
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`),
);
let last = process.cpuUsage();
process.on('message', () => {
  const u = process.cpuUsage(last);
  last = process.cpuUsage();
  const mem = process.memoryUsage();
  process.send!({ cpuUs: u.user + u.system, rss: mem.rss, heapUsed: mem.heapUsed });
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
