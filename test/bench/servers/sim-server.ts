// Child process: the simulator serving the benchmark scenario on 127.0.0.1.
import { createSimulator, startSimulatorServer } from '../../../simulator/index.js';
import { BENCH_SCENARIO } from './bench-scenario.js';

const sim = createSimulator(BENCH_SCENARIO, { seed: 1 });
const server = await startSimulatorServer(sim, { port: 0 });
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
let last = process.cpuUsage();
process.on('message', () => {
  const u = process.cpuUsage(last);
  last = process.cpuUsage();
  process.send!({ cpuUs: u.user + u.system, rows: sim.ledger.size, rss: process.memoryUsage().rss });
});
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
