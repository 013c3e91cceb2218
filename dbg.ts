import { loadScenarioFile, runScenario } from './simulator/index.js';
import { referenceConfig } from './bin/reference-launcher.js';
import { Router, startRouterServer } from './router/index.js';
const l = await loadScenarioFile(process.argv[2]!, {});
if (!l.ok) throw new Error(l.report);
const s = l.scenario;
let printed = 0;
const d = await runScenario({ scenario: s, scenarioText: l.text, scenarioFile: 'q', seed: s.seed!, launcher: async (ctx) => {
  const built = referenceConfig(s, Object.fromEntries(ctx.endpoints.map((e) => [e.id, e.baseUrl])));
  if (!built.ok) throw new Error('x');
  const router = new Router(built.config, { env: ctx.env, seed: ctx.seed });
  const orig = router.route.bind(router);
  (router as any).route = async (body: any, o: any) => { const r: any = await orig(body, o); if (r.kind === 'response' && r.status === 503 && printed++ < 3) { console.log(r.body.slice(0, 1500)); console.log(JSON.stringify((router.state() as any).targets.map((t: any) => [t.target, t.circuits, t.capacity]))); } return r; };
  const server = await startRouterServer(router, { host: '127.0.0.1', port: 0 });
  return { baseUrl: `${server.origin}/v1`, description: 'ref', async stop() { await server.close(); await router.close(); } };
} });
for (const c of d.checks) console.log(c.id, c.verdict, c.figure, c.verdict === "fail" ? JSON.stringify(c.evidence.slice(0, 6), null, 1) : "");
