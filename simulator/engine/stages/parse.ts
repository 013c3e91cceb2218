import { findCorrelationId } from '../correlation.js';
import { countPromptTokens } from '../tokens.js';
import { isEmbeddingModel } from '../../vendors/model-kind.js';
import { formatRequestFacts, requestFacts, shapeOfVendor } from '../request-facts.js';
import type { ErrorSpec } from '../../vendors/types.js';
import { refuse, type Authenticated, type ChatRoute, type Parsed, type Refused } from './attempt.js';

// For the marker in the prompt alone: the headers were searched when the attempt opened.
const NO_HEADERS = {};
const NO_NAMES: readonly string[] = [];

/**
 * A prompt past the model's context window (provider option `contextWindow`, in tokens): a 400
 * every vendor sends for the request itself, which no retry or other key can change.
 * @see https://platform.openai.com/docs/guides/error-codes (context_length_exceeded)
 */
function contextTooLong(tokens: number, window: number): ErrorSpec {
  return {
    kind: 'invalid_request',
    param: 'messages',
    message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
  };
}

/**
 * Reads the body as the vendor's API would: too large, not JSON, invalid for the API or naming
 * a model the provider does not serve is refused; otherwise the attempt learns the model, whether
 * it streams, the correlation marker in the prompt and the prompt's tokens.
 */
export function parse(attempt: Authenticated & { route: ChatRoute }, bodyTooLarge: boolean): Refused | Parsed {
  if (bodyTooLarge) return refuse(attempt, { kind: 'payload_too_large' });
  let body: unknown;
  try {
    body = JSON.parse(attempt.req.body);
  } catch {
    return refuse(attempt, { kind: 'bad_json' });
  }
  const { profile, start } = attempt;
  // What the body asks for, even when the API refuses it (a tool result answering no call).
  const api = attempt.route.api;
  if (api !== 'embeddings') start.request = formatRequestFacts(requestFacts(shapeOfVendor(profile.id, api), body));
  const chat = profile.parse(attempt.route, body);
  if ('kind' in chat) return refuse(attempt, chat);
  attempt.ctx.model = chat.model;
  start.model = chat.model;
  start.stream = chat.stream;
  start.correlationId ??= findCorrelationId(NO_HEADERS, NO_NAMES, chat.promptText);
  if (chat.embedding) start.request = undefined;
  if (!attempt.provider.models.has(chat.model)) return refuse(attempt, { kind: 'model_not_found' });
  const operation = api === 'embeddings' ? 'embeddings' : api === undefined ? 'chat' : undefined;
  if (profile.modelKinds && operation && isEmbeddingModel(chat.model) !== (operation === 'embeddings'))
    return refuse(attempt, { kind: 'wrong_model_kind', operation });
  attempt.tokensIn = countPromptTokens(profile.id, chat.promptText, chat.messageCount, !chat.embedding);
  const window = attempt.provider.options.contextWindow;
  if (typeof window === 'number' && attempt.tokensIn > window)
    return refuse(attempt, contextTooLong(attempt.tokensIn, window));
  attempt.body = body;
  attempt.chat = chat;
  return attempt as Parsed;
}
