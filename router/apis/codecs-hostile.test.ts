import { describe, expect, it } from 'vitest';
import { createRng } from '../core/rng.js';
import { messagesCodec } from './messages-codec.js';
import { responsesCodec } from './responses-codec.js';

// Values of every JSON type, odd ones included, placed anywhere a field is read.
const ODD: unknown[] = [null, 0, -1, 1.5, '', 'x', true, [], {}, [null], [{}], { type: 'text' }, { type: 'tool_use' }];

function hostile(rng: ReturnType<typeof createRng>, depth = 0): unknown {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rng.next() * xs.length)]!;
  if (depth > 3 || rng.next() < 0.3) return pick(ODD);
  const keys = [
    'type',
    'role',
    'content',
    'text',
    'source',
    'tool_use_id',
    'id',
    'name',
    'input',
    'output',
    'call_id',
    'arguments',
    'image_url',
    'cache_control',
  ];
  const o: Record<string, unknown> = {};
  for (let i = 0; i < 3; i++) o[pick(keys)] = rng.next() < 0.5 ? hostile(rng, depth + 1) : [hostile(rng, depth + 1)];
  return o;
}

describe('the inbound codecs given hostile bodies', () => {
  it('answer every one with a request or a 400 in their own shape, never a throw', () => {
    const rng = createRng(11);
    const deep: unknown = JSON.parse('['.repeat(5000) + ']'.repeat(5000));
    for (let i = 0; i < 400; i++) {
      const body =
        i === 0
          ? {
              model: 'm',
              max_tokens: 5,
              input: deep,
              messages: [{ role: 'user', content: [{ type: 'tool_use', input: deep }] }],
            }
          : {
              model: rng.next() < 0.9 ? 'm' : hostile(rng),
              max_tokens: rng.next() < 0.9 ? 16 : hostile(rng),
              messages: [{ role: rng.next() < 0.5 ? 'user' : 'assistant', content: [hostile(rng), hostile(rng)] }],
              input: [hostile(rng), hostile(rng)],
              system: rng.next() < 0.2 ? hostile(rng) : undefined,
              tools: rng.next() < 0.3 ? [hostile(rng)] : undefined,
              tool_choice: rng.next() < 0.2 ? hostile(rng) : undefined,
              text: rng.next() < 0.2 ? { format: hostile(rng) } : undefined,
            };
      const m = messagesCodec.decode(body);
      if (!m.ok) {
        expect(m.reply.status).toBe(400);
        expect(JSON.parse(m.reply.body).type).toBe('error');
      }
      const r = responsesCodec.decode(body);
      if (!r.ok) {
        expect(r.reply.status).toBe(400);
        expect(JSON.parse(r.reply.body).error.type).toBe('invalid_request_error');
      }
    }
  });
});
