import { createRng, deriveSeed } from '../../simulator/index.js';
import { formatCorrelationMarker, CORRELATION_HEADER } from '../../simulator/index.js';
import { sample } from '../../simulator/index.js';
import { createVocabulary, generateText, type Vocabulary } from '../../simulator/index.js';
import { MAX_PROMPT_TOKENS, type LoadSpec } from '../scenario/schema.js';
import { API_PATHS, drawSurfaceRequest } from './surface-request.js';

/** One request the load will send. */
export interface PlannedRequest {
  id: string;
  model: string;
  stream: boolean;
  deadlineMs: number;
  headers: Record<string, string>;
  body: string;
  /** Where it goes under the router's base URL: `/chat/completions`, `/responses`, `/messages`, `/embeddings`. */
  path: string;
  /** What the client asked for (`ClientOutcome.request`), when the load draws the client surface. */
  request?: string;
  /** The conversation it belongs to (`requests.conversations`), whose system prompt it opens with. */
  conversation?: number;
  /** Why no provider could serve it (`requests.invalid`): it is invalid on its face. */
  invalid?: InvalidKind;
}

/** The ways the load can make a request invalid on its face (`requests.invalid.kind`). */
export type InvalidKind = NonNullable<LoadSpec['requests']['invalid']>['kind'];

/**
 * Plans requests from the load spec and the seed: models by weight, the streaming share, prompt
 * lengths from a distribution (text from a seeded faker vocabulary, about four characters a
 * token), a correlation id carried both as a header and as a marker in the prompt, and the
 * deadline header. Request `n` is the same in every run with the same seed.
 */
export function createRequestPlanner(
  load: LoadSpec,
  seed: number,
  runId: string,
  env: Readonly<Record<string, string>> = {},
) {
  // `${THROTTLELAB_…}` in extra headers: only the variables a router is given (validated up front).
  const extra = Object.fromEntries(
    Object.entries(load.headers).map(([k, v]) => [
      k.toLowerCase(),
      v.replace(/\$\{([^}]*)\}/g, (_, name: string) => env[name] ?? ''),
    ]),
  );
  const vocabulary: Vocabulary = createVocabulary(deriveSeed(seed, 7));
  const models = load.requests.models;
  const totalWeight = models.reduce((a, m) => a + m.weight, 0);
  const conversations = load.requests.conversations;
  const surface = load.requests.surface;
  // The body is written as JSON.stringify writes {model, messages, stream, prompt_cache_key?,
  // stream_options?, max_tokens?}, from parts made once: a million requests, one string each.
  const heads = new Map(models.map((m) => [m.model, `{"model":${JSON.stringify(m.model)},"messages":[`]));
  const maxTokens = load.requests.maxTokens !== undefined ? `,"max_tokens":${load.requests.maxTokens}` : '';
  // By `stream`: what comes before a prompt cache key, and after it.
  const streamJson = ['],"stream":false', '],"stream":true'];
  const endJson = [`${maxTokens}}`, `,"stream_options":{"include_usage":true}${maxTokens}}`];
  const deadline = String(load.requests.deadline);
  const authorization = load.routerToken ? `Bearer ${load.routerToken}` : undefined;
  // A conversation's system text and message as JSON: the same for every request of it, in every run with the seed.
  const systems = new Map<number, string>();
  const systemTexts = new Map<number, string>();
  const systemTextOf = (c: number, tokens: number) => {
    let text = systemTexts.get(c);
    if (text === undefined) {
      const words = generateText(
        vocabulary,
        createRng(deriveSeed(seed, 11, c)),
        Math.max(1, Math.round(tokens * 0.75)),
      );
      // Cut to four characters a token: the size the simulator (and most estimators) will count.
      text = `You are assistant ${c}.${words}`.slice(0, tokens * 4);
      systemTexts.set(c, text);
    }
    return text;
  };
  const systemOf = (c: number, tokens: number) => {
    let json = systems.get(c);
    if (json === undefined) {
      const text = systemTextOf(c, tokens);
      json = JSON.stringify({
        role: 'system',
        content: conversations!.cacheControl ? [{ type: 'text', text, cache_control: { type: 'ephemeral' } }] : text,
      });
      systems.set(c, json);
    }
    return json;
  };
  return (n: number): PlannedRequest => {
    const rng = createRng(deriveSeed(seed, 3, n));
    let pick = rng.next() * totalWeight;
    const model = models.find((m) => (pick -= m.weight) < 0)?.model ?? models[models.length - 1]!.model;
    const stream = rng.next() < load.requests.stream;
    // A wide distribution may draw past the bound its parameters respect; the bound holds for draws too.
    const drawn = Math.min(MAX_PROMPT_TOKENS, Math.max(1, Math.round(sample(load.requests.promptTokens, rng))));
    // Drawn from a seed of its own, so that a load without invalid requests plans what it always did.
    const invalid = load.requests.invalid && createRng(deriveSeed(seed, 13, n)).next() < load.requests.invalid.share;
    const tokens = invalid ? load.requests.invalid!.promptTokens : drawn;
    const id = `${runId}-${n}`;
    const words = generateText(vocabulary, rng, Math.max(1, Math.round(tokens * 0.75)));
    const user = `{"role":"user","content":${JSON.stringify(`${formatCorrelationMarker(id)} ${words}`)}}`;
    const s = +stream;
    const headers: Record<string, string> = {
      ...extra,
      'content-type': 'application/json',
      [CORRELATION_HEADER]: id,
      'x-throttlelab-deadline-ms': deadline,
    };
    if (authorization) headers.authorization = authorization;
    if (surface) {
      const c = conversations ? Math.floor(rng.next() * conversations.count) : undefined;
      const req = drawSurfaceRequest(
        surface,
        rng,
        {
          model,
          stream,
          user: `${formatCorrelationMarker(id)} ${words}`,
          ...(c === undefined
            ? {}
            : { system: { text: systemTextOf(c, conversations!.systemTokens), conversation: c } }),
        },
        surface.embeddingModel ?? model,
      );
      if (req.api === 'messages') headers['anthropic-version'] = '2023-06-01';
      return {
        id,
        model: req.api === 'embeddings' ? (surface.embeddingModel ?? model) : model,
        stream: req.stream,
        deadlineMs: load.requests.deadline,
        headers,
        body: req.body,
        path: req.path,
        ...(req.request === undefined ? {} : { request: req.request }),
        ...(c === undefined ? {} : { conversation: c }),
      };
    }
    let body: string;
    let conversation: number | undefined;
    if (conversations) {
      const c = (conversation = Math.floor(rng.next() * conversations.count));
      const key = conversations.promptCacheKey ? `,"prompt_cache_key":"conversation-${c}"` : '';
      body = `${heads.get(model)!}${systemOf(c, conversations.systemTokens)},${user}${streamJson[s]!}${key}${endJson[s]!}`;
    } else body = `${heads.get(model)!}${user}${streamJson[s]!}${endJson[s]!}`;
    return {
      id,
      model,
      stream,
      deadlineMs: load.requests.deadline,
      headers,
      body,
      path: API_PATHS.chat,
      ...(conversation === undefined ? {} : { conversation }),
      ...(invalid ? { invalid: load.requests.invalid!.kind } : {}),
    };
  };
}
