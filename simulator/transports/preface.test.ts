import { connect, createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyPreface, sniffPreface, type WireProtocol } from './preface.js';

const PREFACE = 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n';

describe('classifyPreface', () => {
  it.each([
    ['', 'more'],
    ['P', 'more'],
    ['PRI * HTTP/2.0\r\n', 'more'],
    [PREFACE, 'h2'],
    [`${PREFACE}\x00\x00\x00\x04`, 'h2'],
    ['POST /v1/chat/completions HTTP/1.1\r\n', 'h1'],
    ['PUT / HTTP/1.1\r\n', 'h1'],
    ['PRI * HTTP/1.1\r\n\r\n', 'h1'],
    ['GET / HTTP/1.1\r\n', 'h1'],
    ['\x16\x03\x01', 'h1'],
  ])('judges %j as %s', (head, want) => {
    expect(classifyPreface(Buffer.from(head, 'latin1'))).toBe(want);
  });
});

describe('sniffPreface', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  // Serves one connection: sniffs it, then reads everything the client sent after routing.
  function sniffOne(timeoutMs = 5_000): Promise<{ port: number; routed: Promise<[WireProtocol, string]> }> {
    let routed!: (v: [WireProtocol, string]) => void;
    const result = new Promise<[WireProtocol, string]>((r) => (routed = r));
    server = createServer((socket) =>
      sniffPreface(socket, timeoutMs, (protocol) => {
        let seen = '';
        socket.setEncoding('latin1');
        socket.on('data', (d: string) => (seen += d));
        socket.on('end', () => routed([protocol, seen]));
        socket.resume();
      }),
    );
    return new Promise((resolve) =>
      server!.listen(0, '127.0.0.1', () => {
        const address = server!.address() as { port: number };
        resolve({ port: address.port, routed: result });
      }),
    );
  }

  it('routes a preface split across packets to h2, every byte given back in order', async () => {
    const { port, routed } = await sniffOne();
    const client = connect(port, '127.0.0.1', () => {
      client.write('PRI * HT');
      setTimeout(() => client.end(`${PREFACE.slice(8)}frames`), 20);
    });
    expect(await routed).toEqual(['h2', `${PREFACE}frames`]);
  });

  it('routes HTTP/1.1 at its first differing byte, even one sent alone', async () => {
    const { port, routed } = await sniffOne();
    const client = connect(port, '127.0.0.1', () => {
      client.write('P');
      setTimeout(() => client.end('OST / HTTP/1.1\r\n\r\n'), 20);
    });
    expect(await routed).toEqual(['h1', 'POST / HTTP/1.1\r\n\r\n']);
  });

  it('drops a connection that shows nothing in time, routing it nowhere', async () => {
    const { port, routed } = await sniffOne(50);
    let outcome = 'open';
    const client = connect(port, '127.0.0.1', () => client.write('PRI'));
    client.on('close', () => (outcome = 'closed'));
    await new Promise((r) => client.once('close', r));
    expect(outcome).toBe('closed');
    expect(await Promise.race([routed, 'not routed'])).toBe('not routed');
  });
});
