import { providerVar } from '../../harness/index.js';
import { CONTROL_PREFIX, formatDurationShort, type Simulator } from '../../simulator/index.js';
import type { Io } from '../io.js';

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => `  ${r.map((cell, c) => cell.padEnd(widths[c]!)).join('  ')}`.trimEnd());
}

/** What `simulate` prints once serving: where, the providers, the environment lines and the faults. */
export function printBanner(
  io: Io,
  o: {
    sim: Simulator;
    seed: number;
    origin: string;
    controlToken?: string;
    /** The CA certificate a client must trust when serving TLS. */
    caFile?: string;
    dashboard?: string;
    durationMs?: number;
    /** A line on how the serving is spread (workers, the shared quota). */
    spread?: string;
  },
): void {
  const { sim, seed, origin } = o;
  const scenario = sim.scenario;
  io.out(`throttlelab simulate: scenario "${scenario.name}" (seed ${seed}; replay with --seed ${seed})`);
  io.out(
    `listening on ${origin}   control API: ${origin}${CONTROL_PREFIX}/health${o.controlToken ? ' (token required: $THROTTLELAB_CONTROL_TOKEN)' : ''}`,
  );
  if (o.caFile) io.out(`TLS: HTTP/2 and HTTP/1.1 by ALPN; the CA certificate is ${o.caFile}`);
  if (o.spread) io.out(o.spread);
  if (o.dashboard) io.out(`dashboard: ${o.dashboard}/`);
  io.out('');
  const endpoints = sim.endpoints(origin);
  io.out('providers:');
  for (const line of table([
    ['id', 'vendor', 'base URL', 'models'],
    ...endpoints.map((e) => [e.id, e.vendor, e.baseUrl, e.models.join(', ')]),
  ]))
    io.out(line);
  io.out('');
  io.out('environment (simulated keys from the scenario; keys read from your environment are shown as $NAME):');
  // Node reads it at startup: set it for the client process, not after.
  if (o.caFile) io.out(`  NODE_EXTRA_CA_CERTS=${o.caFile}`);
  for (const e of endpoints) {
    const key = e.keys[0]!;
    io.out(`  # ${e.id} (${e.title}, key "${key.id}")`);
    for (const [name, value] of key.env) io.out(`  ${name}=${value}`);
    io.out(`  ${providerVar(e.id, 'BASE_URL')}=${e.baseUrl}`);
    io.out(`  ${providerVar(e.id, 'API_KEY')}=${key.value}`);
  }
  if (scenario.faults.length > 0) {
    io.out('');
    io.out(`faults (${scenario.faults.length}):`);
    for (const f of scenario.faults)
      io.out(
        `  ${f.id}: ${f.kind} at +${formatDurationShort(f.at)}${f.for !== undefined ? ` for ${formatDurationShort(f.for)}` : ''}${f.match.provider ? ` on ${f.match.provider.join(', ')}` : ''}`,
      );
  }
  io.out('');
  io.out(
    o.durationMs !== undefined
      ? `serving for ${formatDurationShort(o.durationMs)}; Ctrl-C stops sooner.`
      : 'Ctrl-C to stop.',
  );
}
