import { createRng, deriveSeed } from '../../simulator/index.js';
import { formatCorrelationMarker, CORRELATION_HEADER } from '../../simulator/index.js';
import { sample } from '../../simulator/index.js';
import { createVocabulary, generateText, type Vocabulary } from '../../simulator/index.js';
import { MAX_PROMPT_TOKENS, type LoadSpec } from '../scenario/schema.js';

/** One request the load will send. */
export interface PlannedRequest {
  id: string;
  model: string;
  stream: boolean;
  deadlineMs: number;
  headers: Record<string, string>;
  body: string;
}

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
  const systems = new Map<number, string>();
  // A conversation's system prompt: the same text for every request of it, in every run with the seed.
  const systemOf = (c: number, tokens: number) => {
    let text = systems.get(c);
    if (text === undefined) {
      const words = generateText(
        vocabulary,
        createRng(deriveSeed(seed, 11, c)),
        Math.max(1, Math.round(tokens * 0.75)),
      );
      // Cut to four characters a token: the size the simulator (and most estimators) will count.
      text = `You are assistant ${c}.${words}`.slice(0, tokens * 4);
      systems.set(c, text);
    }
    return text;
  };
  return (n: number): PlannedRequest => {
    const rng = createRng(deriveSeed(seed, 3, n));
    let pick = rng.next() * totalWeight;
    const model = models.find((m) => (pick -= m.weight) < 0)?.model ?? models[models.length - 1]!.model;
    const stream = rng.next() < load.requests.stream;
    // A wide distribution may draw past the bound its parameters respect; the bound holds for draws too.
    const tokens = Math.min(MAX_PROMPT_TOKENS, Math.max(1, Math.round(sample(load.requests.promptTokens, rng))));
    const id = `${runId}-${n}`;
    const words = generateText(vocabulary, rng, Math.max(1, Math.round(tokens * 0.75)));
    const prompt = `${formatCorrelationMarker(id)} ${words}`;
    const messages: Array<Record<string, unknown>> = [{ role: 'user', content: prompt }];
    const body: Record<string, unknown> = { model, messages, stream };
    if (conversations) {
      const c = Math.floor(rng.next() * conversations.count);
      const text = systemOf(c, conversations.systemTokens);
      messages.unshift({
        role: 'system',
        content: conversations.cacheControl ? [{ type: 'text', text, cache_control: { type: 'ephemeral' } }] : text,
      });
      if (conversations.promptCacheKey) body.prompt_cache_key = `conversation-${c}`;
    }
    if (stream) body.stream_options = { include_usage: true };
    if (load.requests.maxTokens !== undefined) body.max_tokens = load.requests.maxTokens;
    const headers: Record<string, string> = {
      ...extra,
      'content-type': 'application/json',
      [CORRELATION_HEADER]: id,
      'x-throttlelab-deadline-ms': String(load.requests.deadline),
    };
    if (load.routerToken) headers.authorization = `Bearer ${load.routerToken}`;
    return { id, model, stream, deadlineMs: load.requests.deadline, headers, body: JSON.stringify(body) };
  };
}
