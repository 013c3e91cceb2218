// `throttlelab run --dashboard`: the dashboard is served on loopback while the run goes, its page
// and echarts come from the package, and /control/ reaches the run's simulator (the event stream).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const tmp = await mkdtemp(join(tmpdir(), 'throttlelab-dashboard-'));
afterAll(() => rm(tmp, { recursive: true, force: true }));

/** A GET with a chosen Host header (fetch will not send another). */
function get(url: string, host?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: host ? { host } : {} }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('throttlelab run --dashboard', () => {
  it('serves the page, echarts and the run simulator’s event stream while the run goes', async () => {
    const child = spawn(
      process.execPath,
      [
        join(ROOT, 'dist/bin/throttlelab.js'),
        'run',
        'test/fixtures/compare/compare-steady.yaml',
        '--dashboard',
        '--out',
        join(tmp, 'run'),
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString();
        const m = /^dashboard: (http:\/\/127\.0\.0\.1:\d+)\/ \(live while the run goes\)$/m.exec(stderr);
        if (m) resolve(m[1]!);
      });
      void exited.then((code) => reject(new Error(`run exited ${code} first: ${stderr}`)));
    });
    const page = await get(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<script src="echarts.min.js"></script>');
    expect(page.body).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
    const echarts = await get(`${url}/echarts.min.js`);
    expect(echarts.status).toBe(200);
    expect(echarts.body.length).toBeGreaterThan(100_000);
    // A page of another site reaching the dashboard under its own name is refused.
    expect((await get(`${url}/`, 'evil.example')).status).toBe(403);

    // The event stream of the run's simulator, once it has started: hello, then ticks with attempts.
    let seen = 0;
    for (let i = 0; i < 100 && seen === 0; i++) {
      const controller = new AbortController();
      const res = await fetch(`${url}/control/events`, { signal: controller.signal }).catch(() => undefined);
      if (res?.status === 200) {
        const reader = res.body!.getReader();
        let text = '';
        for (let j = 0; j < 40 && seen === 0; j++) {
          const { value, done } = await reader.read();
          if (done) break;
          text += Buffer.from(value).toString();
          expect(text.startsWith('event: hello\ndata: {"scenario":"compare-steady"')).toBe(true);
          for (const m of text.matchAll(/^data: (\{"t":.*)$/gm))
            seen += (JSON.parse(m[1]!) as { attempts: unknown[] }).attempts.length;
        }
      }
      controller.abort();
      if (seen === 0) await new Promise((r) => setTimeout(r, 200));
    }
    expect(seen).toBeGreaterThan(0);
    expect(await exited).toBe(0);
  }, 90_000);
});
