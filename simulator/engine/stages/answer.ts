import { ContentDigest } from '../../core/content-digest.js';
import { MAX_COMPLETION_TOKENS } from '../../scenario/schema.js';
import type { Completion } from '../../vendors/types.js';
import { seedToolCall } from '../../vendors/tool-calls.js';
import type { Recorder } from '../recorder.js';
import type { Reply } from '../reply.js';
import { sample } from '../sample.js';
import { scriptAnswer } from '../script-answer.js';
import { generateTokens, quoteText, type Vocabulary } from '../vocabulary.js';
import type { Admitted } from './attempt.js';

/**
 * The last stage: generates an admitted request's completion from its seeded stream (length,
 * words, a tool call, pace), scripts it in the vendor's shape as faults bend it, and records it.
 */
export function answer(attempt: Admitted, vocabulary: Vocabulary, recorder: Recorder): Reply {
  const { provider, profile, chat, ctx, decision } = attempt;
  const { rng } = ctx;
  const { latency } = provider;
  const now = ctx.now;
  // Embeddings generate nothing: their cost is the input alone.
  const drawn = chat.embedding
    ? 0
    : Math.min(MAX_COMPLETION_TOKENS, Math.max(1, Math.round(sample(latency.completionTokens, rng))));
  const count = chat.maxTokens !== undefined ? Math.min(drawn, chat.maxTokens) : drawn;
  const tokens = count > 0 ? generateTokens(vocabulary, rng, count) : [];
  // A request offering tools is answered with a seeded call of one (after its text), unless it
  // hands back tool results or was cut by max_tokens; `toolCallRate` sets how often.
  const rate = provider.spec.toolCallRate ?? 1;
  const toolCall =
    chat.tools && !chat.afterToolResult && drawn <= count && (chat.tools.some((t) => t.forced) || rng.next() < rate)
      ? seedToolCall(chat.tools, rng, profile.id === 'anthropic' ? 'toolu_01' : 'call_')
      : undefined;
  const completion: Completion = {
    id: profile.completionId(ctx),
    createdAt: now,
    model: chat.model,
    tokens,
    textJson: quoteText(vocabulary, tokens.join('')),
    inputTokens: attempt.tokensIn,
    cacheRead: attempt.cache?.read,
    cacheWrite: attempt.cache?.write,
    finishReason: drawn > count ? 'length' : 'stop',
    maxTokens: chat.maxTokens,
    embedding: chat.embedding,
    toolCall,
  };
  const ttftDist = decision.ttft ?? latency.ttft;
  const tpsDist = decision.tokensPerSecond ?? latency.tokensPerSecond;
  const ttftMs = ttftDist ? sample(ttftDist, rng) : 0;
  const tps = tpsDist ? sample(tpsDist, rng) : 0;
  const msPerToken = tps > 0 ? 1000 / tps : 0;
  ctx.processingMs = ttftMs + msPerToken * count;
  const views = attempt.ticket.gate.view(attempt.ticket.buckets, now);
  if (profile.id === 'mistral') ctx.meta = { ...ctx.meta, cost: String(attempt.costs.tokens) };
  const headers = Object.assign(recorder.headers(attempt), profile.rateLimitHeaders(views, ctx));
  headers['content-type'] =
    profile.contentType?.(chat.stream, ctx) ?? (chat.stream ? 'text/event-stream; charset=utf-8' : 'application/json');
  const script = scriptAnswer({
    profile,
    ctx,
    chat,
    completion,
    headers,
    fault: decision.response?.spec,
    ttftMs,
    msPerToken,
    tokensPerFrame: latency.tokensPerFrame,
    rng,
  });
  const { status, errorType, tokensOut, end } = script;
  const content = chat.embedding ? undefined : new ContentDigest();
  if (content) for (const t of tokens) content.update(t);
  const seq = recorder.record(attempt, status, errorType, undefined, views, attempt.costs, tokensOut, end, content);
  const reply = recorder.reply(seq, 200, headers, script.steps, provider, attempt.ticket);
  if (profile.binaryStreams && chat.stream) reply.binary = true;
  return reply;
}
