import type { ChatMessage, ChatRequest } from '../core/types.js';

type Part = { type: string; text?: string; cache_control?: unknown; [k: string]: unknown };

const marked = (p: unknown): p is Part =>
  typeof p === 'object' && p !== null && (p as { cache_control?: unknown }).cache_control != null;

/** Whether a message carries a cache breakpoint on one of its parts. */
export function hasBreakpoint(content: ChatMessage['content']): boolean {
  return Array.isArray(content) && content.some(marked);
}

/**
 * The request without Anthropic cache hints (`cache_control` on parts and at the top), for vendors
 * that would reject or ignore them; the same object when it has none, so the common case copies nothing.
 */
export function withoutCacheControl(req: ChatRequest): ChatRequest {
  const top = req.cache_control !== undefined;
  const any = req.messages.some((m) => hasBreakpoint(m.content));
  if (!top && !any) return req;
  const out: ChatRequest = { ...req };
  delete out.cache_control;
  if (any)
    out.messages = req.messages.map((m) =>
      hasBreakpoint(m.content)
        ? {
            ...m,
            content: (m.content as Part[]).map((p) => {
              if (!marked(p)) return p;
              const { cache_control: _dropped, ...rest } = p;
              return rest as Part;
            }),
          }
        : m,
    );
  return out;
}
