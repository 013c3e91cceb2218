import type { ChatRequest } from '../core/types.js';
import { argumentsOf, jsonFormatOf, partsOf, toolCallsOf, toolChoiceOf, toolsOf, type Part } from './chat-parts.js';

type GPart = Record<string, unknown>;
type Content = { role: 'user' | 'model'; parts: GPart[] };

function part(p: Part): GPart {
  if (p.kind === 'text') return { text: p.text };
  if (p.data !== undefined) return { inlineData: { mimeType: p.mediaType, data: p.data } };
  return { fileData: { fileUri: p.url } };
}

/**
 * The neutral chat request as a `generateContent` body: system messages as `systemInstruction`,
 * assistant turns as `model` (tool calls as `functionCall` parts), tool messages as
 * `functionResponse` parts named after the call they answer, images as `inlineData` or
 * `fileData`, function tools as `functionDeclarations`, `tool_choice` as `functionCallingConfig`,
 * JSON output as `responseMimeType` and `responseJsonSchema`.
 * @see https://ai.google.dev/gemini-api/docs/function-calling
 * @see https://ai.google.dev/gemini-api/docs/structured-output
 */
export function toGemini(req: ChatRequest, maxTokens: number | undefined): Record<string, unknown> {
  const system: string[] = [];
  const contents: Content[] = [];
  const names = new Map<string, string>();
  const push = (role: Content['role'], parts: GPart[]) => {
    if (parts.length === 0) return;
    const last = contents.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  for (const m of req.messages) {
    if (m.role === 'system' || m.role === 'developer') {
      for (const p of partsOf(m.content)) if (p.kind === 'text') system.push(p.text);
    } else if (m.role === 'tool') {
      const id = String(m.tool_call_id ?? '');
      const text = partsOf(m.content)
        .map((p) => (p.kind === 'text' ? p.text : ''))
        .join('');
      let response: unknown;
      try {
        response = JSON.parse(text);
      } catch {
        response = undefined;
      }
      const value = response && typeof response === 'object' && !Array.isArray(response) ? response : { content: text };
      push('user', [{ functionResponse: { name: names.get(id) ?? id, response: value } }]);
    } else if (m.role === 'assistant') {
      const parts = partsOf(m.content)
        .filter((p) => p.kind !== 'text' || p.text !== '')
        .map(part);
      for (const c of toolCallsOf(m)) {
        names.set(c.id, c.function.name);
        parts.push({ functionCall: { name: c.function.name, args: argumentsOf(c) } });
      }
      push('model', parts);
    } else push('user', partsOf(m.content).map(part));
  }
  const generationConfig: Record<string, unknown> = {};
  if (maxTokens !== undefined) generationConfig.maxOutputTokens = maxTokens;
  if (typeof req.temperature === 'number') generationConfig.temperature = req.temperature;
  if (typeof req.top_p === 'number') generationConfig.topP = req.top_p;
  if (req.stop) generationConfig.stopSequences = Array.isArray(req.stop) ? req.stop : [req.stop];
  // Gemini takes a seed too (generationConfig.seed); Anthropic and Converse have none.
  if (typeof req.seed === 'number' && Number.isInteger(req.seed)) generationConfig.seed = req.seed;
  const json = jsonFormatOf(req);
  if (json) {
    generationConfig.responseMimeType = 'application/json';
    if (json.schema !== undefined) generationConfig.responseJsonSchema = json.schema;
  }
  const body: Record<string, unknown> = { contents, generationConfig };
  if (system.length > 0) body.systemInstruction = { parts: [{ text: system.join('\n\n') }] };
  // A context cache the client created at Gemini (`cachedContents/…`), named as the SDKs' extra field.
  const cached = req.cached_content ?? req.cachedContent;
  if (typeof cached === 'string' && cached) body.cachedContent = cached;
  const tools = toolsOf(req);
  if (tools.length > 0) {
    body.tools = [
      {
        functionDeclarations: tools.map((t) => ({
          name: t.name,
          ...(t.description !== undefined ? { description: t.description } : {}),
          parametersJsonSchema: t.parameters,
        })),
      },
    ];
    const choice = toolChoiceOf(req);
    if (choice) {
      const mode = choice.mode === 'auto' ? 'AUTO' : choice.mode === 'none' ? 'NONE' : 'ANY';
      body.toolConfig = {
        functionCallingConfig: { mode, ...(choice.name ? { allowedFunctionNames: [choice.name] } : {}) },
      };
    }
  }
  return body;
}
