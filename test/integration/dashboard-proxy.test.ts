import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startDashboard, type Dashboard } from '../../bin/dashboard/serve-dashboard.js';
import { serve, type Served } from '../helpers/serve.js';

const YAML = `
version: 1
name: dashboard-proxy
providers:
  - { id: openai, vendor: openai, models: [gpt-4o-mini], keys: [{ id: main, value: sk-openai }] }
`;

let served: Served | undefined;
let dashboard: Dashboard | undefined;
afterEach(async () => {
  await dashboard?.close();
  await served?.close();
  dashboard = served = undefined;
});

// A GET with the path exactly as given (fetch would resolve its dot segments before sending).
function rawGet(origin: string, path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the dashboard proxy', () => {
  it('refuses a path that leaves /control/ once dot segments are resolved', async () => {
    served = await serve(YAML);
    const origin = served.origin;
    dashboard = await startDashboard({ target: () => origin, controlToken: 'dash-token' });
    for (const path of [
      '/control/../openai/v1/models',
      '/control/%2e%2e/openai/v1/models',
      '/control/%2E%2e/openai/v1/models',
      '/control/.%2e/openai/v1/models',
      '/control/..\\openai/v1/models',
      '/control/faults/../../openai/v1/models',
      '/control/..',
    ]) {
      const res = await rawGet(dashboard.origin, path);
      expect(res.status, path).toBe(403);
      expect(res.body).toContain('leaves /control/');
    }
  });

  it('passes on a path that stays under /control/', async () => {
    served = await serve(YAML);
    const origin = served.origin;
    dashboard = await startDashboard({ target: () => origin });
    expect((await rawGet(dashboard.origin, '/control/health')).status).toBe(200);
    expect((await rawGet(dashboard.origin, '/control/faults/../health')).status).toBe(200);
  });
});
