// Child process: a bare node:http server that reads the request and returns a fixed response:
// the given body, with either the minimum headers or the given header set.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const body = process.argv[2]!;
const extra = process.argv[3] ? (JSON.parse(process.argv[3]) as Record<string, string>) : {};
const headers = { ...extra, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
const server = createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(200, headers);
    res.end(body);
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
  process.send!({ cpuUs: u.user + u.system });
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
