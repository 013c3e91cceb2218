import { describe, expect, it } from 'vitest';
import { MAX_SSE_EVENT_CHARS, MAX_SSE_LINE_CHARS, SseReader } from './sse.js';

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

  it('accepts lone CR line ends, even split from a following LF', () => {
    const r = new SseReader();
    expect(r.push('data: a\r\rdata: b\r')).toEqual([{ event: undefined, data: 'a' }]);
    expect(r.push('\n\n')).toEqual([{ event: undefined, data: 'b' }]);
  });

  it('marks a stream without line ends malformed past the line bound, keeping nothing of it', () => {
    const r = new SseReader();
    const chunk = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 4; i++) expect(r.push(chunk)).toEqual([]);
    expect(r.malformed).toBeUndefined();
    expect(r.push(chunk)).toEqual([]);
    expect(r.malformed).toBe(`a line over ${MAX_SSE_LINE_CHARS} characters`);
    expect(r.push('\n\ndata: late\n\n')).toEqual([]);
    expect(r.end()).toEqual([]);
  });

  it('marks an event malformed whose data lines together pass the event bound', () => {
    const r = new SseReader();
    const line = `data: ${'y'.repeat(1024 * 1024)}\n`;
    for (let i = 0; i < 8; i++) r.push(line);
    expect(r.malformed).toBeUndefined();
    expect(r.push(line)).toEqual([]);
    expect(r.malformed).toBe(`an event over ${MAX_SSE_EVENT_CHARS} characters`);
  });
});
