// CPU the reference router spends per request in process, with a transport that answers at once:
// the router's own hot path (validation, selection, circuits, capacity, translation), free of the
// sockets and scheduling that dominate `bench:router` on a busy machine. Medians of rounds.
//   npx tsx test/bench/router-route-cpu.ts [--requests 20000] [--rounds 7]
import { RouterConfigSchema, Router, takingAbortLike, type HttpResponse, type Transport } from '../../router/index.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const requests = Number(args.get('requests') ?? 20000);
const rounds = Number(args.get('rounds') ?? 7);

const COMPLETION = JSON.stringify({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4o-mini',
  choices: [
    { index: 0, message: { role: 'assistant', content: 'one two three four five six' }, finish_reason: 'stop' },
  ],
  usage: { prompt_tokens: 12, completion_tokens: 6, total_tokens: 18 },
});
const chunk = (content: string) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
const STREAM = [
  ...['one', ' two', ' three', ' four', ' five', ' six'].map(chunk),
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
  'data: [DONE]\n\n',
].map((s) => Buffer.from(s));
const HEADERS = {
  'content-type': 'application/json',
  'x-ratelimit-limit-requests': '100000000',
  'x-ratelimit-remaining-requests': '99999999',
  'x-ratelimit-reset-requests': '1ms',
};

function respond(stream: boolean): HttpResponse {
  const body = stream ? STREAM : [Buffer.from(COMPLETION)];
  return {
    status: 200,
    headers: stream ? { ...HEADERS, 'content-type': 'text/event-stream' } : HEADERS,
    body: (async function* () {
      yield* body;
    })(),
    text: async () => body.join(''),
    collect: async (onChunk) => {
      for (const b of body) onChunk(b);
      return body;
    },
    dispose() {},
  };
}

const transport: Transport = {
  send: takingAbortLike(async (call) => respond(call.body?.includes('"stream":true') ?? false)),
  close: async () => {},
};
const config = RouterConfigSchema.parse({
  version: 1,
  providers: [
    {
      id: 'openai',
      vendor: 'openai',
      baseUrl: 'http://x.test/v1',
      keys: [{ id: 'k', env: 'K' }],
      models: ['gpt-4o-mini'],
    },
  ],
});
const router = new Router(config, { env: { K: 'sk-bench-key-0001' }, seed: 1, transport });
const body = (stream: boolean) => ({
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: 'hello there, how are you today?' },
  ],
  ...(stream ? { stream: true } : {}),
});

async function round(stream: boolean): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < requests; i++) {
    const r = await router.route(body(stream));
    if (r.kind === 'stream') for await (const _ of r.rest);
  }
  const u = process.cpuUsage(start);
  return (u.user + u.system) / requests;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const stream of [false, true]) {
  await round(stream); // warm-up
  const us: number[] = [];
  for (let r = 0; r < rounds; r++) us.push(await round(stream));
  console.log(
    `${stream ? 'stream' : 'json  '}: median ${median(us).toFixed(1)} µs CPU per request (rounds: ${us.map((u) => u.toFixed(1)).join(', ')})`,
  );
}
