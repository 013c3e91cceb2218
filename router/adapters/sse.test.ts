import { describe, expect, it } from 'vitest';
import { SseReader } from './sse.js';

describe('SseReader', () => {
  it('yields events across arbitrary chunk boundaries', () => {
    const r = new SseReader();
    const text = 'event: message_start\ndata: {"a":1}\n\ndata: {"b":2}\n\n';
    const out = [...text].flatMap((ch) => r.push(ch));
    expect(out).toEqual([
      { event: 'message_start', data: '{"a":1}' },
      { event: undefined, data: '{"b":2}' },
    ]);
  });

  it('produces nothing for keep-alive comments and blank lines', () => {
    const r = new SseReader();
    expect(r.push(': keep-alive\n\n\n\n: OPENROUTER PROCESSING\n\n')).toEqual([]);
  });

  it('accepts CRLF pairs (Gemini) and a final event without its blank line', () => {
    const r = new SseReader();
    expect(r.push('data: {"x":1}\r\n\r\ndata: {"y":2}\r')).toEqual([{ event: undefined, data: '{"x":1}' }]);
    expect(r.push('\n')).toEqual([]);
    expect(r.end()).toEqual([{ event: undefined, data: '{"y":2}' }]);
  });

  it('joins multi-line data', () => {
    expect(new SseReader().push('data: a\ndata: b\n\n')).toEqual([{ event: undefined, data: 'a\nb' }]);
  });
});
