import { describe, expect, it } from 'vitest';
import { spliceMembers } from './splice-members.js';
import { topLevelMembers } from './top-level-members.js';

const texts = [
  '{"model":"a","messages":[{"role":"user","content":"hi"}]}',
  ' {\n  "messages" : [ {"role":"user","content":"a } ] { [ \\" \\\\"} ],\n  "model" : "a" , "stream":true }\n',
  '{"model":"a","stream_options":{"include_usage":false},"messages":[],"stream":false,"n":1,"x":null,"y":-1.5e3}',
  '{"messages":[{"content":"\\\\","role":"user"}],"model":"a","stream_options":null}',
  '{"mo\\u0064el":"a","messages":[]}',
  '{"model":"é 😀 \\u00e9","messages":[{"content":[{"type":"text","text":"{\\"model\\":\\"x\\"}"}]}],"tools":[{"a":{"b":[1,[2,{"c":"]"}]]}}]}',
];

const edits: Array<Record<string, string | null>> = [
  { model: '"gpt-4o-mini"' },
  { model: '"m"', stream: 'true', stream_options: '{"include_usage":true}' },
  { model: '"m"', stream: 'false', stream_options: null },
];

describe('spliceMembers', () => {
  it('gives the same object as parsing, editing and serialising, for every text and edit', () => {
    for (const text of texts)
      for (const e of edits) {
        const expected = JSON.parse(text) as Record<string, unknown>;
        for (const [k, v] of Object.entries(e)) {
          if (v === null) delete expected[k];
          else expected[k] = JSON.parse(v);
        }
        const out = spliceMembers(text, e);
        expect(out, text).toBeDefined();
        expect(JSON.parse(out!), `${text} with ${JSON.stringify(e)}`).toEqual(expected);
      }
  });

  it('leaves the members it does not edit byte for byte', () => {
    const text = '{"model":"a","messages":[{"role":"user","content":"\\u00e9 1.0"}],"temperature":1.0}';
    expect(spliceMembers(text, { model: '"b"' })).toBe(
      '{"model":"b","messages":[{"role":"user","content":"\\u00e9 1.0"}],"temperature":1.0}',
    );
  });

  it('removes the last member with the comma before it, and the only one whole', () => {
    expect(spliceMembers('{"a":1 , "b":2 }', { b: null })).toBe('{"a":1  }');
    expect(spliceMembers('{"b":2}', { b: null, c: '3' })).toBe('{"c":3}');
  });

  it('leaves more than one removal to the serialiser (two removals could take the same comma)', () => {
    expect(spliceMembers('{"a":1,"b":2,"c":3}', { b: null, c: null })).toBeUndefined();
    expect(spliceMembers('{"a":1,"b":2,"c":3}', { a: null, b: null, c: null, d: '4' })).toBeUndefined();
    expect(spliceMembers('{"a":1,"b":2,"c":3}', { b: null, d: '4', a: '0' })).toBe('{"a":0,"c":3,"d":4}');
  });

  it('refuses a top-level key given twice, and texts that are not one object', () => {
    expect(spliceMembers('{"model":"a","n":5,"n":1}', { model: '"b"' })).toBeUndefined();
    expect(spliceMembers('{"model":"a","mod\\u0065l":"b"}', { model: '"b"' })).toBeUndefined();
    for (const bad of ['[1]', '"x"', '{"a":1', '{"a":"1}', '{"a" 1}', '{"a":1}x', '{"a":1,}', '{"a":}', ''])
      expect(topLevelMembers(bad), bad).toBeUndefined();
  });

  it('finds the spans of the top-level members only', () => {
    const text = '{"usage":{"x":1},"choices":[{"usage":2}]}';
    const m = topLevelMembers(text)!;
    expect([...m.keys()]).toEqual(['usage', 'choices']);
    expect(text.slice(m.get('choices')!.valueStart, m.get('choices')!.valueEnd)).toBe('[{"usage":2}]');
  });
});
