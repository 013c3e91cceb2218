import type { Usage } from '../core/types.js';
import type { CallContext, Completed, HttpCall, ProviderAdapter, StreamTranslator, Translated } from './adapter.js';
import { createAwsEventStreamReader } from './aws-event-stream.js';
import { toConverse } from './bedrock-request.js';
import { ChunkWriter, completionBody } from './openai-chunks.js';
import { truncatedStream } from './stream-failures.js';
import { withForward } from './with-forward.js';

const STOP: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  content_filtered: 'content_filter',
  guardrail_intervened: 'content_filter',
};

function regionOf(ctx: CallContext, host: string): string {
  return ctx.region ?? /^bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com$/.exec(host)?.[1] ?? 'us-east-1';
}

// Loaded on first use: a router without Bedrock never pays for the signer's import.
let modules: Promise<[typeof import('@smithy/signature-v4'), typeof import('@aws-crypto/sha256-js')]> | undefined;
const signerModules = () =>
  (modules ??= Promise.all([import('@smithy/signature-v4'), import('@aws-crypto/sha256-js')]));

/**
 * Signs a call with SigV4 (`ACCESS_KEY_ID:SECRET_ACCESS_KEY` keys) through Smithy's signer, or
 * sends a Bedrock API key as Bearer.
 * @see https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv.html
 */
async function authorize(call: HttpCall, ctx: CallContext): Promise<HttpCall> {
  const colon = ctx.apiKey.indexOf(':');
  if (colon < 0) return { ...call, headers: { ...call.headers, authorization: `Bearer ${ctx.apiKey}` } };
  const url = new URL(call.url);
  const [{ SignatureV4 }, { Sha256 }] = await signerModules();
  const signer = new SignatureV4({
    service: 'bedrock',
    region: regionOf(ctx, url.hostname),
    credentials: { accessKeyId: ctx.apiKey.slice(0, colon), secretAccessKey: ctx.apiKey.slice(colon + 1) },
    sha256: Sha256,
  });
  const signed = await signer.sign(
    {
      method: call.method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port ? Number(url.port) : undefined,
      path: url.pathname,
      headers: { ...call.headers, host: url.host },
      body: call.body,
    },
    { signingDate: new Date(ctx.now) },
  );
  const headers = { ...(signed.headers as Record<string, string>) };
  delete headers.host;
  return { ...call, headers };
}

interface ConverseUsage {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadInputTokens?: number | null;
  cacheWriteInputTokens?: number | null;
}

/**
 * Converse's input split (after the last cache point, cache reads, cache writes) as OpenAI counts
 * it: `promptTokens` is the whole input, reads are `cachedTokens`, writes `cacheWriteTokens`.
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html
 */
function converseUsage(u: ConverseUsage | undefined, completionTokens: number, estimated: boolean): Usage {
  const read = u?.cacheReadInputTokens ?? 0;
  const write = u?.cacheWriteInputTokens ?? 0;
  const out = { promptTokens: (u?.inputTokens ?? 0) + read + write } as Usage;
  if (read > 0) out.cachedTokens = read;
  if (write > 0) out.cacheWriteTokens = write;
  out.completionTokens = completionTokens;
  out.estimated = estimated;
  return out;
}

interface ConverseOutput {
  output?: {
    message?: { content?: Array<{ text?: string; toolUse?: { toolUseId?: string; name?: string; input?: unknown } }> };
  };
  stopReason?: string;
  usage?: ConverseUsage;
}

interface ConverseEvent {
  contentBlockIndex?: number;
  start?: { toolUse?: { toolUseId?: string; name?: string } };
  delta?: { text?: string; toolUse?: { input?: string } };
  stopReason?: string;
  usage?: ConverseUsage;
  message?: string;
}

/** Bedrock's ConverseStream events (their types in the event-stream headers) as OpenAI chunks. */
class BedrockStreamTranslator implements StreamTranslator {
  private readonly writer: ChunkWriter;
  private finished = false;
  private contentEvents = 0;
  /** Content block index → OpenAI tool call index, for the `toolUse` blocks. */
  private readonly tools = new Map<number, number>();

  constructor(
    ctx: CallContext,
    private readonly clientWantsUsage: boolean,
  ) {
    this.writer = new ChunkWriter('bedrock', ctx.model, ctx.now);
  }

  onEvent(data: string, event: string | undefined): Translated {
    let j: ConverseEvent;
    try {
      j = JSON.parse(data);
    } catch {
      j = { message: data };
    }
    if (event?.startsWith('exception:')) {
      const type = event.slice('exception:'.length);
      return {
        chunks: [],
        content: false,
        error: {
          message: j.message ?? 'upstream error',
          type,
          code: /serviceUnavailable|throttling/i.test(type) ? 'overloaded' : type,
        },
      };
    }
    switch (event) {
      case 'messageStart':
        return { chunks: [this.writer.role()], content: false };
      case 'contentBlockStart':
        return this.blockStart(j);
      case 'contentBlockDelta':
        return this.blockDelta(j);
      case 'messageStop':
        return { chunks: [this.writer.finish(STOP[j.stopReason ?? 'end_turn'] ?? 'stop')], content: false };
      case 'metadata':
        return this.metadata(j);
      default:
        return { chunks: [], content: false };
    }
  }

  private blockStart(j: ConverseEvent): Translated {
    const use = j.start?.toolUse;
    if (!use) return { chunks: [], content: false };
    const index = this.tools.size;
    this.tools.set(j.contentBlockIndex ?? -1, index);
    this.contentEvents++;
    return {
      chunks: [this.writer.toolCall(index, use.toolUseId ?? `call_${index}`, use.name ?? '', '')],
      content: true,
    };
  }

  private blockDelta(j: ConverseEvent): Translated {
    const input = j.delta?.toolUse?.input;
    if (input && this.tools.has(j.contentBlockIndex ?? -1))
      return {
        chunks: [this.writer.toolCall(this.tools.get(j.contentBlockIndex!)!, undefined, undefined, input)],
        content: true,
      };
    const text = j.delta?.text;
    if (!text) return { chunks: [], content: false };
    this.contentEvents++;
    return { chunks: [this.writer.content(text)], content: true };
  }

  private metadata(j: ConverseEvent): Translated {
    this.finished = true;
    const usage = converseUsage(j.usage, j.usage?.outputTokens ?? this.contentEvents, j.usage === undefined);
    const { promptTokens, completionTokens, cachedTokens, cacheWriteTokens } = usage;
    return {
      chunks: this.clientWantsUsage
        ? [this.writer.usage(promptTokens, completionTokens, cachedTokens, cacheWriteTokens)]
        : [],
      content: false,
      done: true,
      usage,
    };
  }

  onEnd(): Translated {
    if (this.finished) return { chunks: [], content: false };
    const usage = { promptTokens: 0, completionTokens: this.contentEvents, estimated: true };
    return truncatedStream('before its metadata event', usage);
  }
}

/**
 * Amazon Bedrock's Converse API behind an OpenAI face: requests signed with SigV4, answers and
 * ConverseStream's binary event stream (`messageStart`, `contentBlockDelta`, `messageStop`,
 * `metadata`, exception messages) turned into OpenAI chunks with usage.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html
 */
export const bedrockAdapter: ProviderAdapter = {
  vendor: 'bedrock',
  warmUp: async () => void (await signerModules()),
  async buildRequest(req, ctx, stream) {
    const call: HttpCall = {
      method: 'POST',
      url: `${ctx.baseUrl}/model/${encodeURIComponent(ctx.model)}/${stream ? 'converse-stream' : 'converse'}`,
      headers: withForward(ctx.forward, {
        'content-type': 'application/json',
        accept: stream ? 'application/vnd.amazon.eventstream' : 'application/json',
      }),
      body: JSON.stringify(toConverse(req, req.max_completion_tokens ?? req.max_tokens ?? ctx.defaultMaxTokens)),
    };
    return authorize(call, ctx);
  },
  streamReader: createAwsEventStreamReader,
  // Bedrock reserves max_tokens beside the input until the answer ends.
  admissionTokens: (req, input) => input + (req.max_completion_tokens ?? req.max_tokens ?? 0),
  parseCompletion(text, ctx): Completed | { error: string } {
    let j: ConverseOutput;
    try {
      j = JSON.parse(text);
    } catch {
      return { error: 'the provider answered 200 with a body that is not JSON' };
    }
    const content = j.output?.message?.content;
    if (!Array.isArray(content)) return { error: 'the provider answered 200 without output' };
    const usage = converseUsage(j.usage, j.usage?.outputTokens ?? 0, j.usage === undefined);
    return {
      body: completionBody(
        'bedrock',
        ctx.model,
        ctx.now,
        content.map((b) => b.text ?? '').join(''),
        STOP[j.stopReason ?? 'end_turn'] ?? 'stop',
        usage.promptTokens,
        usage.completionTokens,
        usage.cachedTokens ?? 0,
        content
          .filter((b) => b.toolUse?.name)
          .map((b, i) => ({
            id: b.toolUse!.toolUseId ?? `call_${i}`,
            name: b.toolUse!.name!,
            arguments: JSON.stringify(b.toolUse!.input ?? {}),
          })),
        usage.cacheWriteTokens ?? 0,
      ),
      usage,
    };
  },
  streamTranslator: (ctx, clientWantsUsage): StreamTranslator => new BedrockStreamTranslator(ctx, clientWantsUsage),
};
