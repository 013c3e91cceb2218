// Child process: a simulator with a fast and a slowly streaming openai provider.
import { createSimulator, startSimulatorServer } from '../../../simulator/index.js';
import { scenarioFrom } from '../../helpers/scenario.js';

const sim = createSimulator(
  scenarioFrom(`
version: 1
name: bench-router
simulator: { ledger: { maxRows: 100000 } }
providers:
  - id: openai
    vendor: openai
    models: [gpt-4o-mini]
    keys: [{ id: main, value: sk-bench }]
    quotas: [{ metric: requests, limit: 1000000000, per: 1m }, { metric: tokens, limit: 1000000000000, per: 1m }]
    latency: { completionTokens: 16 }
  - id: slow
    vendor: openai
    models: [gpt-4o-mini]
    keys: [{ id: main, value: sk-bench-slow }]
    latency: { completionTokens: 120, tokensPerSecond: 20 }
`),
  { seed: 1 },
);
const server = await startSimulatorServer(sim, { port: 0 });
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
