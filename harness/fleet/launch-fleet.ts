import type { LaunchContext, RouterLaunch } from '../launch/launcher.js';
import { ROUTER_REPLICA_VAR } from '../launch/provider-env.js';

/**
 * Starts a fleet: `launchOne` once per replica, all at once, each told its name in
 * `THROTTLELAB_ROUTER_REPLICA` (`replica-0`, `replica-1`, …). If one fails to start, the others are
 * stopped and the failure is raised. The fleet stops as one.
 */
export async function launchFleet(
  ctx: LaunchContext,
  replicas: number,
  launchOne: (index: number, ctx: LaunchContext) => Promise<RouterLaunch>,
  description: string,
): Promise<RouterLaunch> {
  const started = await Promise.allSettled(
    Array.from({ length: replicas }, (_, i) =>
      launchOne(i, { ...ctx, env: { ...ctx.env, [ROUTER_REPLICA_VAR]: `replica-${i}` } }),
    ),
  );
  const ok = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await Promise.all(ok.map((l) => l.stop()));
    throw failed.reason;
  }
  return {
    baseUrl: ok[0]!.baseUrl,
    replicas: ok.map((l) => l.baseUrl),
    logs: ok.flatMap((l) => l.logs ?? []),
    description,
    ...(ok.some((l) => l.redacted) ? { redacted: true } : {}),
    pids: () => ok.flatMap((l) => l.pids?.() ?? []),
    replicaPids: () => ok.map((l) => l.pids?.() ?? []),
    async stop() {
      await Promise.all(ok.map((l) => l.stop()));
    },
  };
}
