/** The shapes a chat request body comes in, client side or provider side. */
export type RequestShape = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini' | 'bedrock';

/**
 * What a chat request asked for, the same words whatever the API: what request-fidelity and
 * cache-use compare between a client's request and each attempt the router sent for it. Absent
 * members were not sent. `tr` lists tool-result ids in order (Gemini's `functionResponse` has
 * none: its results count in `trn` alone); `cc` counts Anthropic `cache_control` hints (Bedrock
 * `cachePoint` blocks); `px` identifies the prompt's opening (system) text and `pt` estimates
 * its tokens (four characters a token), when the request carried a cache hint.
 */
export interface RequestFacts {
  mt?: number;
  t?: number;
  tp?: number;
  st?: string[];
  sd?: number;
  tools?: string[];
  tr?: string[];
  trn?: number;
  cc?: number;
  pck?: string;
  px?: string;
  pt?: number;
  /** Messages (turns) in the request besides its system text. */
  n: number;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** The shape of the body a vendor's chat API (or its Responses API) takes. */
export function shapeOfVendor(vendor: string, api: string | undefined): RequestShape {
  if (api === 'responses') return 'openai-responses';
  // Bedrock's InvokeModel takes the model's native body: Claude's is the Messages body.
  if (api === 'invoke') return 'anthropic';
  if (vendor === 'anthropic') return 'anthropic';
  if (vendor === 'gemini' || vendor === 'vertex-ai') return 'gemini';
  if (vendor === 'bedrock') return 'bedrock';
  return 'openai-chat';
}

// FNV-1a, 32 bits, as 8 hex digits: the prefix's identity, cheap enough for a few kB per request.
function fnv(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  let out = '';
  for (const p of arr(content)) if (isObj(p) && typeof p.text === 'string') out += p.text;
  return out;
}

/** Counts `cache_control` hints anywhere in a value (parts, tools, the top level). */
function countHints(v: unknown, depth = 0): number {
  if (depth > 8) return 0;
  if (Array.isArray(v)) return v.reduce<number>((a, x) => a + countHints(x, depth + 1), 0);
  if (!isObj(v)) return 0;
  let n = v.cache_control != null || v.cachePoint != null ? 1 : 0;
  for (const k in v) if (k !== 'cache_control' && typeof v[k] === 'object') n += countHints(v[k], depth + 1);
  return n;
}

function stops(v: unknown): string[] | undefined {
  if (typeof v === 'string') return [v];
  const list = arr(v).filter((s): s is string => typeof s === 'string');
  return list.length > 0 ? list : undefined;
}

interface Draft {
  facts: RequestFacts;
  system: string;
}

function openaiChat(b: Obj): Draft {
  const facts: RequestFacts = { n: 0 };
  let system = '';
  const tr: string[] = [];
  for (const m of arr(b.messages)) {
    if (!isObj(m)) continue;
    if (m.role === 'system' || m.role === 'developer') system += textOf(m.content);
    else facts.n++;
    if (m.role === 'tool') tr.push(String(m.tool_call_id ?? ''));
  }
  facts.mt = num(b.max_completion_tokens) ?? num(b.max_tokens);
  facts.t = num(b.temperature);
  facts.tp = num(b.top_p);
  facts.st = stops(b.stop);
  facts.sd = num(b.seed);
  facts.tools = names(arr(b.tools).map((t) => (isObj(t) && isObj(t.function) ? t.function.name : undefined)));
  if (tr.length) facts.tr = tr;
  return { facts, system };
}

function openaiResponses(b: Obj): Draft {
  const facts: RequestFacts = { n: 0 };
  let system = typeof b.instructions === 'string' ? b.instructions : '';
  const tr: string[] = [];
  if (typeof b.input === 'string') facts.n = 1;
  for (const m of arr(b.input)) {
    if (!isObj(m)) continue;
    if (m.role === 'system' || m.role === 'developer') system += textOf(m.content);
    else facts.n++;
    if (m.type === 'function_call_output') tr.push(String(m.call_id ?? ''));
  }
  facts.mt = num(b.max_output_tokens);
  facts.t = num(b.temperature);
  facts.tp = num(b.top_p);
  facts.tools = names(arr(b.tools).map((t) => (isObj(t) ? t.name : undefined)));
  if (tr.length) facts.tr = tr;
  return { facts, system };
}

function anthropic(b: Obj): Draft {
  const facts: RequestFacts = { n: 0 };
  const tr: string[] = [];
  for (const m of arr(b.messages)) {
    if (!isObj(m)) continue;
    facts.n++;
    for (const p of arr(m.content)) if (isObj(p) && p.type === 'tool_result') tr.push(String(p.tool_use_id ?? ''));
  }
  facts.mt = num(b.max_tokens);
  facts.t = num(b.temperature);
  facts.tp = num(b.top_p);
  facts.st = stops(b.stop_sequences);
  facts.tools = names(arr(b.tools).map((t) => (isObj(t) ? t.name : undefined)));
  if (tr.length) facts.tr = tr;
  return { facts, system: textOf(b.system) };
}

function gemini(b: Obj): Draft {
  const facts: RequestFacts = { n: 0 };
  let trn = 0;
  for (const m of arr(b.contents)) {
    if (!isObj(m)) continue;
    facts.n++;
    for (const p of arr(m.parts)) if (isObj(p) && p.functionResponse) trn++;
  }
  const g = isObj(b.generationConfig) ? b.generationConfig : {};
  facts.mt = num(g.maxOutputTokens);
  facts.t = num(g.temperature);
  facts.tp = num(g.topP);
  facts.st = stops(g.stopSequences);
  facts.sd = num(g.seed);
  const decl = arr(b.tools).flatMap((t) => (isObj(t) ? arr(t.functionDeclarations) : []));
  facts.tools = names(decl.map((d) => (isObj(d) ? d.name : undefined)));
  if (trn) facts.trn = trn;
  const sys = isObj(b.systemInstruction) ? textOf(b.systemInstruction.parts) : '';
  return { facts, system: sys };
}

function bedrock(b: Obj): Draft {
  const facts: RequestFacts = { n: 0 };
  const tr: string[] = [];
  for (const m of arr(b.messages)) {
    if (!isObj(m)) continue;
    facts.n++;
    for (const p of arr(m.content)) if (isObj(p) && isObj(p.toolResult)) tr.push(String(p.toolResult.toolUseId ?? ''));
  }
  const g = isObj(b.inferenceConfig) ? b.inferenceConfig : {};
  facts.mt = num(g.maxTokens);
  facts.t = num(g.temperature);
  facts.tp = num(g.topP);
  facts.st = stops(g.stopSequences);
  const specs = isObj(b.toolConfig) ? arr(b.toolConfig.tools) : [];
  facts.tools = names(specs.map((t) => (isObj(t) && isObj(t.toolSpec) ? t.toolSpec.name : undefined)));
  if (tr.length) facts.tr = tr;
  return { facts, system: textOf(b.system) };
}

function names(list: unknown[]): string[] | undefined {
  const out = list.filter((n): n is string => typeof n === 'string');
  return out.length > 0 ? out.sort() : undefined;
}

const SHAPES: Record<RequestShape, (b: Obj) => Draft> = {
  'openai-chat': openaiChat,
  'openai-responses': openaiResponses,
  anthropic,
  gemini,
  bedrock,
};

/** The facts of a parsed chat request body in `shape`; undefined for a body that is not an object. */
export function requestFacts(shape: RequestShape, body: unknown): RequestFacts | undefined {
  if (!isObj(body)) return undefined;
  const { facts, system } = SHAPES[shape](body);
  if (shape === 'anthropic' || shape === 'bedrock' || shape === 'openai-chat' || shape === 'openai-responses') {
    const cc = countHints(body);
    if (cc) facts.cc = cc;
  }
  if (typeof body.prompt_cache_key === 'string') facts.pck = body.prompt_cache_key;
  if ((facts.cc || facts.pck) && system) {
    facts.px = fnv(system);
    facts.pt = Math.round(system.length / 4);
  }
  return facts;
}

/** Whether facts say anything beyond the message count (what the ledger keeps). */
function isPlain(f: RequestFacts): boolean {
  for (const k in f) if (k !== 'n' && f[k as keyof RequestFacts] !== undefined) return false;
  return true;
}

/** The facts as the ledger and the outcomes keep them: compact JSON, members in a fixed order; undefined for a plain request. */
export function formatRequestFacts(f: RequestFacts | undefined): string | undefined {
  if (!f || isPlain(f)) return undefined;
  const { mt, t, tp, st, sd, tools, tr, trn, cc, pck, px, pt, n } = f;
  return JSON.stringify({ mt, t, tp, st, sd, tools, tr, trn, cc, pck, px, pt, n });
}
