import type { StoreHealth } from '../core/state-store.js';
import type { TargetUsage } from './meter.js';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** A Prometheus histogram of request durations in seconds. */
export class DurationHistogram {
  private readonly counts = new Array<number>(BUCKETS.length).fill(0);
  private sum = 0;
  private count = 0;

  observe(seconds: number): void {
    for (let i = 0; i < BUCKETS.length; i++) if (seconds <= BUCKETS[i]!) this.counts[i]!++;
    this.sum += seconds;
    this.count++;
  }

  render(name: string, labels: string): string[] {
    const sep = labels ? `${labels},` : '';
    return [
      ...BUCKETS.map((b, i) => `${name}_bucket{${sep}le="${b}"} ${this.counts[i]}`),
      `${name}_bucket{${sep}le="+Inf"} ${this.count}`,
      `${name}_sum{${labels}} ${this.sum}`,
      `${name}_count{${labels}} ${this.count}`,
    ];
  }
}

const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

/** What `renderMetrics` shows. */
interface MetricsInput {
  requests: Map<string, number>;
  duration: DurationHistogram;
  usage: Iterable<[string, TargetUsage]>;
  circuits: Iterable<[string, { state: string }]>;
  retryBudgetRemaining: number;
  store: StoreHealth;
  admission?: { inFlight: number; waiting: number; waitingHighWater: number; shed: Record<string, number> };
  /** Requests by cache-affinity result, when affinity is on. */
  cacheAffinity?: Record<string, number>;
}

/** A target id's labels: `provider`, `key` and `model` (a model name may hold slashes). */
function targetLabels(target: string): string {
  const [provider, key, ...model] = target.split('/');
  return `provider="${esc(provider!)}",key="${esc(key!)}",model="${esc(model.join('/'))}"`;
}

function usageLines(lines: string[], usage: ReadonlyArray<[string, TargetUsage]>): void {
  lines.push(
    '# HELP throttlelab_router_attempts_total Upstream attempts by target and outcome.',
    '# TYPE throttlelab_router_attempts_total counter',
  );
  for (const [target, u] of usage) {
    const l = targetLabels(target);
    for (const [outcome, n] of Object.entries(u.attempts))
      lines.push(`throttlelab_router_attempts_total{${l},outcome="${outcome}"} ${n}`);
  }
  lines.push(
    '# HELP throttlelab_router_tokens_total Tokens metered per target (every attempt).',
    '# TYPE throttlelab_router_tokens_total counter',
  );
  for (const [target, u] of usage) {
    const l = targetLabels(target);
    lines.push(
      `throttlelab_router_tokens_total{${l},direction="prompt"} ${u.promptTokens}`,
      `throttlelab_router_tokens_total{${l},direction="completion"} ${u.completionTokens}`,
    );
  }
  lines.push(
    '# HELP throttlelab_router_cached_tokens_total Prompt tokens the provider read from (read) or wrote to (write) its prompt cache.',
    '# TYPE throttlelab_router_cached_tokens_total counter',
  );
  for (const [target, u] of usage) {
    const l = targetLabels(target);
    lines.push(
      `throttlelab_router_cached_tokens_total{${l},kind="read"} ${u.cachedTokens}`,
      `throttlelab_router_cached_tokens_total{${l},kind="write"} ${u.cacheWriteTokens}`,
    );
  }
}

function storeLines(lines: string[], st: StoreHealth): void {
  const store = `store="${st.kind}"`;
  lines.push(
    '# HELP throttlelab_router_shared_state Whether state is shared with the fleet (1) or the router serves on local state (0).',
    '# TYPE throttlelab_router_shared_state gauge',
    `throttlelab_router_shared_state{${store}} ${st.shared ? 1 : 0}`,
    '# HELP throttlelab_router_shared_state_fallbacks_total Times the router fell back to local state (store slow, down or restarted empty).',
    '# TYPE throttlelab_router_shared_state_fallbacks_total counter',
    `throttlelab_router_shared_state_fallbacks_total{${store}} ${st.fallbacks}`,
    '# HELP throttlelab_router_shared_state_rejoins_total Times the router rejoined the fleet after a fallback.',
    '# TYPE throttlelab_router_shared_state_rejoins_total counter',
    `throttlelab_router_shared_state_rejoins_total{${store}} ${st.rejoins}`,
    '# HELP throttlelab_router_shared_state_errors_total Store commands that failed or timed out.',
    '# TYPE throttlelab_router_shared_state_errors_total counter',
    `throttlelab_router_shared_state_errors_total{${store}} ${st.errors}`,
    '# HELP throttlelab_router_shared_state_pending_writes Circuit changes waiting to reach the store.',
    '# TYPE throttlelab_router_shared_state_pending_writes gauge',
    `throttlelab_router_shared_state_pending_writes{${store}} ${st.pendingWrites}`,
    '# HELP throttlelab_router_shared_state_peers Other replicas heard from in the last few seconds.',
    '# TYPE throttlelab_router_shared_state_peers gauge',
    `throttlelab_router_shared_state_peers{${store}} ${st.peers}`,
  );
  if (st.rejected !== undefined)
    lines.push(
      '# HELP throttlelab_router_shared_state_rejected_total Values read from the store that were not valid, dropped.',
      '# TYPE throttlelab_router_shared_state_rejected_total counter',
      `throttlelab_router_shared_state_rejected_total{${store}} ${st.rejected}`,
    );
}

function admissionLines(lines: string[], a: NonNullable<MetricsInput['admission']>): void {
  lines.push(
    '# HELP throttlelab_router_in_flight Client requests being routed now.',
    '# TYPE throttlelab_router_in_flight gauge',
    `throttlelab_router_in_flight ${a.inFlight}`,
    '# HELP throttlelab_router_waiting Client requests held waiting for capacity now.',
    '# TYPE throttlelab_router_waiting gauge',
    `throttlelab_router_waiting ${a.waiting}`,
    '# HELP throttlelab_router_waiting_max The most client requests held waiting for capacity at once.',
    '# TYPE throttlelab_router_waiting_max gauge',
    `throttlelab_router_waiting_max ${a.waitingHighWater}`,
    '# HELP throttlelab_router_shed_total Client requests answered 503 at once instead of being held, by reason.',
    '# TYPE throttlelab_router_shed_total counter',
  );
  for (const [reason, n] of Object.entries(a.shed))
    lines.push(`throttlelab_router_shed_total{reason="${esc(reason)}"} ${n}`);
}

/** Renders the router's metrics in the Prometheus text exposition format. */
export function renderMetrics(input: MetricsInput): string {
  const lines: string[] = [];
  lines.push(
    '# HELP throttlelab_router_requests_total Client requests by outcome.',
    '# TYPE throttlelab_router_requests_total counter',
  );
  for (const [outcome, n] of input.requests)
    lines.push(`throttlelab_router_requests_total{outcome="${esc(outcome)}"} ${n}`);
  lines.push(
    '# HELP throttlelab_router_request_duration_seconds Client request duration.',
    '# TYPE throttlelab_router_request_duration_seconds histogram',
  );
  lines.push(...input.duration.render('throttlelab_router_request_duration_seconds', ''));
  usageLines(lines, [...input.usage]);
  if (input.cacheAffinity) {
    lines.push(
      '# HELP throttlelab_router_cache_affinity_total Requests by cache affinity: sent to the warm target (warm), warm target busy or open (fallback), no warm target known (cold).',
      '# TYPE throttlelab_router_cache_affinity_total counter',
    );
    for (const [result, n] of Object.entries(input.cacheAffinity))
      lines.push(`throttlelab_router_cache_affinity_total{result="${result}"} ${n}`);
  }
  lines.push(
    '# HELP throttlelab_router_circuit_open Whether a circuit is open (1) or half-open (0.5).',
    '# TYPE throttlelab_router_circuit_open gauge',
  );
  for (const [scope, s] of input.circuits)
    lines.push(
      `throttlelab_router_circuit_open{scope="${esc(scope)}"} ${s.state === 'open' ? 1 : s.state === 'half-open' ? 0.5 : 0}`,
    );
  lines.push(
    '# HELP throttlelab_router_retry_budget_remaining Extra attempts left in the retry budget window.',
    '# TYPE throttlelab_router_retry_budget_remaining gauge',
  );
  lines.push(`throttlelab_router_retry_budget_remaining ${input.retryBudgetRemaining}`);
  storeLines(lines, input.store);
  if (input.admission) admissionLines(lines, input.admission);
  return `${lines.join('\n')}\n`;
}
