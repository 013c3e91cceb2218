// Child process: one openai provider with a request quota of `argv[2]` a minute (default 1 800,
// so 30 req/s), no latency: the capacity an overload benchmark exceeds.
import { createSimulator, startSimulatorServer } from '../../../simulator/index.js';
import { scenarioFrom } from '../../helpers/scenario.js';

const perMinute = Number(process.argv[2] ?? 1800);
const sim = createSimulator(
  scenarioFrom(`
version: 1
name: bench-overload
simulator: { ledger: { maxRows: 100000 } }
providers:
  - id: openai
    vendor: openai
    models: [gpt-4o-mini]
    keys: [{ id: main, value: sk-bench }]
    quotas: [{ metric: requests, limit: ${perMinute}, per: 1m }]
    latency: { completionTokens: 16 }
`),
  { seed: 1 },
);
const server = await startSimulatorServer(sim, { port: 0 });
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
