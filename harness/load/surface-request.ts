import { formatRequestFacts, requestFacts, type RequestShape, type Rng } from '../../simulator/index.js';
import type { SurfaceSpec } from '../scenario/schema.js';

/** The inbound APIs a client of the reference router speaks, by the path under the router's base URL. */
export const API_PATHS = {
  chat: '/chat/completions',
  responses: '/responses',
  messages: '/messages',
  embeddings: '/embeddings',
} as const;

export type ClientApi = keyof typeof API_PATHS;

const SHAPE: Record<Exclude<ClientApi, 'embeddings'>, RequestShape> = {
  chat: 'openai-chat',
  responses: 'openai-responses',
  messages: 'anthropic',
};

// A few values each, so that a run's facts repeat (the ledger and outcomes intern them).
const TEMPERATURES = [0, 0.3, 0.7, 1];
const TOP_PS = [0.5, 0.9, 1];
const STOPS = [['END'], ['###', 'END'], ['\n\nUser:']];
const MAX_TOKENS = [16, 64, 256];
const TOOLS = [
  {
    name: 'get_weather',
    description: 'The weather in a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  {
    name: 'lookup_order',
    description: 'An order by its number.',
    parameters: { type: 'object', properties: { order: { type: 'integer' } }, required: ['order'] },
  },
];

/** What one surface request is: where it goes, its body, and what the client asked for. */
export interface SurfaceRequest {
  api: ClientApi;
  path: string;
  body: string;
  stream: boolean;
  /** `RequestFacts` JSON of the body; undefined for embeddings. */
  request: string | undefined;
}

/** Everything a surface request is drawn from besides the Rng. */
export interface SurfaceDraw {
  model: string;
  stream: boolean;
  /** The user's text (the correlation marker and the prompt). */
  user: string;
  /** The conversation's shared prefix, its number, if the load has conversations. */
  system?: { text: string; conversation: number };
}

type Obj = Record<string, unknown>;
const pick = <T>(rng: Rng, list: readonly T[]): T => list[Math.floor(rng.next() * list.length)]!;

function pickApi(surface: SurfaceSpec, rng: Rng): ClientApi {
  const a = surface.apis;
  let x = rng.next() * (a.chat + a.responses + a.messages + a.embeddings);
  for (const api of ['chat', 'responses', 'messages'] as const) if ((x -= a[api]) < 0) return api;
  return 'embeddings';
}

/** Earlier turns: `rounds` tool calls, each answered by its result, in the API's own words. */
function toolTurns(api: ClientApi, rounds: number, tag: number): Obj[] {
  const out: Obj[] = [];
  for (let k = 0; k < rounds; k++) {
    const tool = TOOLS[k % TOOLS.length]!;
    const id = `call_${tag}_${k}`;
    const args = tool.name === 'get_weather' ? { city: 'Lyon' } : { order: 1000 + k };
    const result = tool.name === 'get_weather' ? 'Sunny, 21 C.' : 'Shipped yesterday.';
    if (api === 'chat') {
      out.push({
        role: 'assistant',
        content: null,
        tool_calls: [{ id, type: 'function', function: { name: tool.name, arguments: JSON.stringify(args) } }],
      });
      out.push({ role: 'tool', tool_call_id: id, content: result });
    } else if (api === 'responses') {
      out.push({ type: 'function_call', call_id: id, name: tool.name, arguments: JSON.stringify(args) });
      out.push({ type: 'function_call_output', call_id: id, output: result });
    } else {
      out.push({ role: 'user', content: `Question ${k}.` });
      out.push({ role: 'assistant', content: [{ type: 'tool_use', id, name: tool.name, input: args }] });
      out.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result }] });
    }
  }
  return out;
}

function toolDefinitions(api: ClientApi): Obj[] {
  if (api === 'chat') return TOOLS.map((t) => ({ type: 'function', function: t }));
  if (api === 'responses') return TOOLS.map((t) => ({ type: 'function', ...t }));
  return TOOLS.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
}

/**
 * One request of the whole client surface, drawn with `rng`: the API by weight, then each
 * parameter by its share, in that API's own words (Responses has no `stop` or `seed`, Messages
 * no `seed` and always a `max_tokens`), tools with earlier tool calls and results, cache hints on
 * the shared prefix. Streams only on chat completions (the load reads chat SSE).
 */
export function drawSurfaceRequest(
  surface: SurfaceSpec,
  rng: Rng,
  d: SurfaceDraw,
  embeddingModel: string,
): SurfaceRequest {
  const api = pickApi(surface, rng);
  if (api === 'embeddings')
    return {
      api,
      path: API_PATHS.embeddings,
      body: JSON.stringify({ model: embeddingModel, input: [d.user] }),
      stream: false,
      request: undefined,
    };
  const has = (share: number) => rng.next() < share;
  const maxTokens = has(surface.maxTokens) ? pick(rng, MAX_TOKENS) : undefined;
  const temperature = has(surface.temperature) ? pick(rng, TEMPERATURES) : undefined;
  const topP = has(surface.topP) ? pick(rng, TOP_PS) : undefined;
  const stop = has(surface.stop) ? pick(rng, STOPS) : undefined;
  const seed = has(surface.seed) ? Math.floor(rng.next() * 10) : undefined;
  const rounds = has(surface.tools) ? 1 + Math.floor(rng.next() * 3) : 0;
  const hinted = d.system !== undefined && has(surface.cacheHints);
  const tag = Math.floor(rng.next() * 5);
  const stream = api === 'chat' && d.stream;
  const body: Obj = { model: d.model };
  const turns = rounds > 0 ? toolTurns(api, rounds, tag) : [];
  const sys = d.system;
  const cacheKey = sys && hinted ? `conversation-${sys.conversation}` : undefined;
  if (api === 'chat') {
    const messages: Obj[] = [];
    if (sys)
      messages.push({
        role: 'system',
        content: hinted ? [{ type: 'text', text: sys.text, cache_control: { type: 'ephemeral' } }] : sys.text,
      });
    messages.push(...turns, { role: 'user', content: d.user });
    body.messages = messages;
    if (stream) body.stream = true;
    if (stream) body.stream_options = { include_usage: true };
    if (maxTokens !== undefined) body.max_tokens = maxTokens;
    if (stop) body.stop = stop;
    if (seed !== undefined) body.seed = seed;
    if (cacheKey) body.prompt_cache_key = cacheKey;
  } else if (api === 'responses') {
    if (sys) body.instructions = sys.text;
    body.input = [...turns, { role: 'user', content: d.user }];
    if (maxTokens !== undefined) body.max_output_tokens = maxTokens;
    if (cacheKey) body.prompt_cache_key = cacheKey;
  } else {
    if (sys) body.system = hinted ? [{ type: 'text', text: sys.text, cache_control: { type: 'ephemeral' } }] : sys.text;
    // The question follows the last tool result in the same user turn, as turns alternate.
    const last = turns.at(-1);
    if (last) (last.content as Obj[]).push({ type: 'text', text: d.user });
    body.messages = last ? turns : [{ role: 'user', content: d.user }];
    body.max_tokens = maxTokens ?? 256;
    if (stop) body.stop_sequences = stop;
  }
  if (temperature !== undefined) body.temperature = temperature;
  if (topP !== undefined) body.top_p = topP;
  if (rounds > 0) body.tools = toolDefinitions(api);
  return {
    api,
    path: API_PATHS[api],
    body: JSON.stringify(body),
    stream,
    request: formatRequestFacts(requestFacts(SHAPE[api], body)) ?? '{}',
  };
}
