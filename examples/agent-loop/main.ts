// An agent loop through the router, failing over from OpenAI to Anthropic mid-conversation.
// Run it: npx tsx examples/agent-loop/main.ts
import OpenAI from 'openai';
import { fileURLToPath } from 'node:url';
import { Router, RouterConfigSchema, startRouterServer } from '../../router/index.js';
import { createSimulator, parseScenario, startSimulatorServer } from '../../simulator/index.js';
import { runAgent, type AgentTurn } from './agent.js';

// Two vendors behind the simulator; both answer a request that offers tools with a tool call.
const SCENARIO = `
version: 1
name: agent-loop
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-sim-openai }], quotas: [{ metric: requests, limit: 1000, per: 1m }], latency: { completionTokens: 6 } }
  - { id: anthropic, vendor: anthropic, models: [claude-haiku-4-5], keys: [{ id: main, value: sk-ant-sim }], quotas: [{ metric: requests, limit: 1000, per: 1m }], latency: { completionTokens: 6 } }
`;

/** Runs the example: the agent's turns, and every attempt the providers saw (provider, status). */
export async function main(): Promise<{
  answer: string | undefined;
  turns: AgentTurn[];
  attempts: Array<[string, number]>;
}> {
  const parsed = parseScenario(SCENARIO);
  if (!parsed.ok) throw new Error('the example scenario is invalid');
  const sim = createSimulator(parsed.scenario, { seed: 7 });
  const simServer = await startSimulatorServer(sim, { port: 0 });
  const config = RouterConfigSchema.parse({
    version: 1,
    providers: [
      {
        id: 'openai',
        vendor: 'openai',
        baseUrl: `${simServer.origin}/openai/v1`,
        keys: [{ id: 'main', env: 'OPENAI_KEY' }],
        models: [{ name: 'gpt-4o-mini', quality: 0.9 }],
      },
      {
        id: 'anthropic',
        vendor: 'anthropic',
        baseUrl: `${simServer.origin}/anthropic`,
        keys: [{ id: 'main', env: 'ANTHROPIC_KEY' }],
        models: [{ name: 'claude-haiku-4-5', quality: 0.5 }],
      },
    ],
    aliases: { agent: ['openai/gpt-4o-mini', 'anthropic/claude-haiku-4-5'] },
    routing: { weights: { cost: 0, latency: 0, reliability: 0, quality: 10, capacity: 0 } },
  });
  const router = new Router(config, { env: { OPENAI_KEY: 'sk-sim-openai', ANTHROPIC_KEY: 'sk-ant-sim' }, seed: 7 });
  const server = await startRouterServer(router, { port: 0 });
  try {
    const client = new OpenAI({ baseURL: `${server.origin}/v1`, apiKey: 'unused', maxRetries: 0 });
    let turn = 0;
    const result = await runAgent(client, {
      model: 'agent',
      question: 'What should I wear in Oslo today?',
      tools: {
        get_weather: {
          description: 'The weather in a city today.',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          run: (args) => {
            // The tool ran: from now on OpenAI answers 429 (a rate limit mid-conversation).
            if (turn++ === 0)
              sim.addFault({
                id: 'rate-limited',
                kind: 'status',
                status: 429,
                match: { provider: 'openai' },
                hint: { form: 'seconds', after: '30s' },
              });
            return JSON.stringify({ city: args.city, tempC: 3, sky: 'sleet' });
          },
        },
      },
    });
    const attempts = [...sim.ledger.rowsIterator()].map((r): [string, number] => [r.provider, r.status]);
    return { ...result, attempts };
  } finally {
    await server.close();
    await router.close();
    await simServer.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { answer, turns, attempts } = await main();
  for (const t of turns)
    console.log(
      `${t.provider}: ${t.toolCalls.map((c) => `${c.name}(${JSON.stringify(c.args)}) -> ${c.result}`).join('; ') || t.answer}`,
    );
  console.log(`attempts: ${attempts.map(([p, s]) => `${p} ${s}`).join(', ')}`);
  console.log(`answer: ${answer}`);
}
