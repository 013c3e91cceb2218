import { describe, expect, it } from 'vitest';
import { main } from '../../examples/agent-loop/main.js';

describe('examples/agent-loop', () => {
  it('runs model -> tool -> model through the router, failing over from OpenAI to Anthropic mid-conversation', async () => {
    const { answer, turns, attempts } = await main();
    // Turn 1: OpenAI asks for the tool; the tool runs; turn 2: OpenAI is rate limited and
    // Anthropic, given the whole conversation (tool call and result translated), answers.
    expect(turns.map((t) => [t.provider, t.toolCalls.map((c) => c.name)])).toEqual([
      ['openai', ['get_weather']],
      ['anthropic', []],
    ]);
    expect(typeof turns[0]!.toolCalls[0]!.args.city).toBe('string');
    expect(answer!.length).toBeGreaterThan(0);
    expect(attempts).toEqual([
      ['openai', 200],
      ['openai', 429],
      ['anthropic', 200],
    ]);
  });
});
