// Over 300 lines on purpose: the report and the dashboard share one chromium launch (seconds on CI), and the dashboard tests one simulator with its traffic; splitting would launch both twice.
// Reports and the live dashboard seen as people see them: Debian's chromium driven by
// playwright-core, offline (every request that is not the page's own is refused and counted),
// no console errors, every chart drawn with data, the verdict table equal to report.json,
// readable at 1280 px and at a phone's 390 px. THROTTLELAB_SCREENSHOTS=docs/img writes the
// README's screenshots.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = process.env.THROTTLELAB_SCREENSHOTS;
const exec = promisify(execFile);
const tmp = await mkdtemp(join(tmpdir(), 'throttlelab-browser-'));
// The built CLI (`npm test` builds first), as the other end-to-end tests use it.
const CLI = [process.execPath, join(ROOT, 'dist/bin/throttlelab.js')];

let browser: Browser;
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does), or set CHROMIUM_PATH`);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 60_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  await browser?.close();
  await rm(tmp, { recursive: true, force: true });
});

/** A page that may fetch only from `allowed` origins (file: always); logs console errors and refused requests. */
async function openPage(width: number, allowed: string[] = []) {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const errors: string[] = [];
  const refused: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:') || allowed.some((o) => url.startsWith(o))) return route.continue();
    refused.push(url);
    return route.abort();
  });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  return { page, errors, refused, close: () => context.close() };
}

/** Nothing wider than the window: no sideways scrolling, text at a readable size. */
async function readable(page: Page, width: number) {
  const m = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    smallest: Math.min(
      ...[...document.querySelectorAll('p, td, th, h1, h2, h3, span, button')]
        .filter((e) => (e as HTMLElement).offsetParent !== null && e.textContent!.trim() !== '')
        .map((e) => parseFloat(getComputedStyle(e).fontSize)),
    ),
  }));
  expect(m.scroll, `page ${m.scroll} px wide in a ${width} px window`).toBeLessThanOrEqual(width);
  expect(m.smallest).toBeGreaterThanOrEqual(12);
}

async function screenshot(page: Page, name: string) {
  const file = join(tmp, name);
  await page.screenshot({ path: file, fullPage: name.includes('phone') ? false : true });
  if (SHOTS) {
    await mkdir(join(ROOT, SHOTS), { recursive: true });
    await copyFile(file, join(ROOT, SHOTS, name));
  }
}

describe('the HTML report in chromium', () => {
  const out = join(tmp, 'report');
  beforeAll(async () => {
    // A run with passes and failures (a router that passes 429s on), so the table has both.
    await exec(
      CLI[0]!,
      [
        ...CLI.slice(1),
        'run',
        'test/fixtures/compare/compare-quota.yaml',
        '--router-cmd',
        'node --import tsx test/fixtures/routers/serve.ts passes-429',
        '--out',
        out,
      ],
      { cwd: ROOT, timeout: 90_000 },
    ).catch((e: { code: number }) => expect(e.code).toBe(1));
  }, 120_000);

  for (const width of [1280, 390]) {
    it(`shows every chart with data and the verdicts of report.json, offline, at ${width} px`, async () => {
      const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as {
        verdict: string;
        checks: Array<{ id: string; verdict: string }>;
        series: { providers: unknown[] };
      };
      const { page, errors, refused, close } = await openPage(width);
      try {
        await page.goto(pathToFileURL(join(out, 'index.html')).href);
        const charts = await page.$$eval('svg', (svgs) =>
          svgs.map((s) => ({
            marks: s.querySelectorAll('path, rect, circle').length,
            width: s.getBoundingClientRect().width,
            height: s.getBoundingClientRect().height,
          })),
        );
        // Latency, throughput and one timeline per provider at least; each drawn, with marks beyond its axes.
        expect(charts.length).toBeGreaterThanOrEqual(2 + report.series.providers.length);
        for (const c of charts) {
          expect(c.marks).toBeGreaterThan(10);
          expect(c.width).toBeGreaterThan(100);
          expect(c.height).toBeGreaterThan(50);
        }
        const rows = await page.$$eval('table tr', (trs) =>
          trs
            .map((tr) => [...tr.querySelectorAll('td')])
            .filter((cells) => cells.length === 3 && cells[0]!.querySelector('code'))
            .map((cells) => [cells[0]!.querySelector('code')!.textContent, cells[1]!.textContent!.trim()]),
        );
        expect(rows).toEqual(report.checks.map((c) => [c.id, c.verdict.toUpperCase()]));
        expect(await page.textContent('.badge')).toBe(report.verdict.toUpperCase());
        await readable(page, width);
        await screenshot(page, width === 1280 ? 'report.png' : 'report-phone.png');
        expect(errors).toEqual([]);
        expect(refused).toEqual([]);
      } finally {
        await close();
      }
    });
  }
});

describe('the live dashboard in chromium', () => {
  let sim = '';
  let dashboard = '';
  let traffic: Promise<void> | undefined;
  let stopTraffic = false;

  beforeAll(async () => {
    const child = spawn(
      CLI[0]!,
      [...CLI.slice(1), 'simulate', 'scenarios/quickstart.yaml', '--seed', '5', '--dashboard', '--duration', '300s'],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(child);
    let printed = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => {
        printed += d.toString();
        const s = /listening on (http:\/\/\S+)/.exec(printed);
        const dash = /dashboard: (http:\/\/\S+)\//.exec(printed);
        if (s && dash) {
          sim = s[1]!;
          dashboard = dash[1]!;
          resolve();
        }
      });
      child.on('exit', (code) => reject(new Error(`simulate exited ${code}: ${printed}`)));
    });
    // Traffic to every provider, in each vendor's own API, as a router would send it.
    const { providers } = (await (await fetch(`${sim}/_throttlelab/providers`)).json()) as {
      providers: Array<{
        id: string;
        vendor: string;
        baseUrl: string;
        models: string[];
        keys: Array<{ value: string }>;
      }>;
    };
    const send = (p: (typeof providers)[number]) => {
      const key = p.keys[0]!.value;
      const model = p.models[0]!;
      const text = 'Say hello.';
      if (p.vendor === 'anthropic')
        return fetch(`${p.baseUrl}/v1/messages`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
          body: JSON.stringify({ model, max_tokens: 16, messages: [{ role: 'user', content: text }] }),
        });
      if (p.vendor === 'gemini')
        return fetch(`${p.baseUrl}/v1beta/models/${model}:generateContent`, {
          method: 'POST',
          headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text }] }] }),
        });
      return fetch(`${p.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, max_tokens: 16, messages: [{ role: 'user', content: text }] }),
      });
    };
    traffic = (async () => {
      for (let i = 0; i < 2000 && !stopTraffic; i++) {
        await Promise.all(
          providers.map((p) =>
            send(p).then(
              (r) => r.arrayBuffer(),
              () => undefined,
            ),
          ),
        );
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
  }, 60_000);

  afterAll(async () => {
    stopTraffic = true;
    await traffic;
  });

  it('shows each provider, the quota and the faults as they happen, and adds and removes a fault', async () => {
    const { page, errors, refused, close } = await openPage(1280, [dashboard]);
    try {
      await page.goto(`${dashboard}/`);
      await page.waitForSelector('#status.live', { timeout: 15_000 });
      const points = () =>
        page.$$eval('.chart', (els) =>
          els.map((el) => {
            const option = (
              window as unknown as {
                echarts: { getInstanceByDom(e: Element): { getOption(): { series: Array<{ data?: unknown[] }> } } };
              }
            ).echarts
              .getInstanceByDom(el)
              ?.getOption();
            return {
              chart: el.getAttribute('data-chart'),
              points: (option?.series ?? []).reduce((n, s) => n + (s.data?.length ?? 0), 0),
            };
          }),
        );
      await expect
        .poll(async () => (await points()).every((c) => c.points > 0), { timeout: 20_000, interval: 250 })
        .toBe(true);
      const charts = (await points()).map((c) => c.chart);
      expect(charts).toEqual(['attempts-openai', 'attempts-anthropic', 'attempts-gemini', 'quota']);
      expect(await page.textContent('[data-totals=openai]')).toMatch(/\d+×200/);

      // Add the Anthropic storm from the catalogue now, see it active (here and in the API), remove it.
      const row = page.locator('tr[data-fault="anthropic-529-storm"]');
      await row.locator('button[data-action=add]').click();
      await expect.poll(() => row.locator('td').nth(2).textContent(), { timeout: 10_000 }).toMatch(/^ACTIVE since/);
      const listed = (await (await fetch(`${sim}/_throttlelab/faults`)).json()) as {
        faults: Array<{ id: string; active: boolean; origin: string }>;
      };
      expect(listed.faults.find((f) => f.id === 'anthropic-529-storm')).toMatchObject({ active: true, origin: 'live' });
      await expect.poll(() => page.textContent('[data-totals=anthropic]'), { timeout: 20_000 }).toMatch(/×529/);
      await row.locator('button[data-action=remove]').click();
      await expect.poll(() => row.locator('td').nth(2).textContent(), { timeout: 10_000 }).toBe('not on the timeline');
      await readable(page, 1280);
      await screenshot(page, 'dashboard.png');
      await page.setViewportSize({ width: 390, height: 844 });
      await page.waitForTimeout(600);
      await readable(page, 390);
      await screenshot(page, 'dashboard-phone.png');
      expect(errors).toEqual([]);
      expect(refused).toEqual([]);
    } finally {
      await close();
    }
  }, 150_000);

  it('draws the attempts made before it opened, adds any fault from its form, and shows its time left', async () => {
    // The traffic stops before this page opens: every OpenAI attempt there is was made before it.
    const openaiAttempts = async () =>
      ((await (await fetch(`${sim}/_throttlelab/ledger?provider=openai&limit=1`)).json()) as { total: number }).total;
    await expect.poll(openaiAttempts, { timeout: 20_000, interval: 250 }).toBeGreaterThan(20);
    stopTraffic = true;
    await traffic;
    const before = await openaiAttempts();
    const { page, errors, refused, close } = await openPage(1280, [dashboard]);
    try {
      await page.goto(`${dashboard}/`);
      await page.waitForSelector('#status.live', { timeout: 15_000 });
      // Once the ledger is read, every attempt made before the page opened is drawn and counted,
      // once. (With traffic going on, the chart and the totals take each new attempt at their own
      // moments, and were compared at a moment they differed.)
      const drawnAndCounted = () =>
        page.$eval('[data-chart=attempts-openai]', (el) => {
          const option = (
            window as unknown as {
              echarts: { getInstanceByDom(e: Element): { getOption(): { series: Array<{ data?: unknown[] }> } } };
            }
          ).echarts
            .getInstanceByDom(el)!
            .getOption();
          const drawn = option.series.reduce((n, s) => n + (s.data?.length ?? 0), 0);
          const text = document.querySelector('[data-totals=openai]')!.textContent!;
          const counted = [...text.matchAll(/(\d+)×/g)].reduce((n, m) => n + Number(m[1]), 0);
          return { drawn, counted };
        });
      await expect
        .poll(
          async () => {
            const { drawn, counted } = await drawnAndCounted();
            return drawn === before && counted === before;
          },
          { timeout: 20_000, interval: 250 },
        )
        .toBe(true);

      const fill = async (fields: Record<string, string>) => {
        for (const [name, value] of Object.entries(fields)) {
          if (name === 'kind') await page.selectOption('#fault-form select[name=kind]', value);
          else await page.fill(`#fault-form [name=${name}]`, value);
        }
        await page.click('#fault-form button[type=submit]');
      };
      // A fault the scenario's catalogue does not have, with a field only the JSON box gives.
      await fill({
        id: 'form-storm',
        kind: 'status',
        status: '503',
        for: '5m',
        providers: 'gemini',
        more: '{"message": "down"}',
      });
      const row = page.locator('tr[data-fault="form-storm"]');
      await expect.poll(() => row.locator('td').nth(2).textContent(), { timeout: 10_000 }).toMatch(/, \d+ s left \(/);
      await row.locator('button[data-action=disable]').click();
      await expect.poll(() => row.locator('td').nth(2).textContent(), { timeout: 10_000 }).toMatch(/^DISABLED/);
      // The same id changes the fault; the simulator's issues come back on the page.
      await fill({ id: 'form-storm', status: '200', for: '', providers: '', more: '' });
      await expect.poll(() => page.textContent('#message'), { timeout: 10_000 }).toMatch(/status: Too small/);
      await row.locator('button[data-action=remove]').click();
      await expect.poll(() => row.count(), { timeout: 10_000 }).toBe(0);
      // The one refused change: chromium logs the 400 the page then explains.
      expect(errors).toEqual(['Failed to load resource: the server responded with a status of 400 (Bad Request)']);
      expect(refused).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);

  it('throttlelab fault list|add|update|disable|rm drive the same simulator', async () => {
    const cli = (...args: string[]) =>
      exec(CLI[0]!, [...CLI.slice(1), 'fault', ...args, '--sim', sim], { cwd: ROOT, timeout: 30_000 }).then(
        (r) => ({ code: 0, out: r.stdout, err: r.stderr }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout, err: e.stderr }),
      );
    const added = await cli(
      'add',
      '{ id: cli-storm, kind: status, status: 503, for: 30s, match: { provider: [gemini] } }',
    );
    expect(added.code, added.err).toBe(0);
    expect(added.out).toMatch(/^added cli-storm \(status\), for 30 s$/m);
    const list = await cli('list');
    expect(list.out).toMatch(/^cli-storm {2}status {2}live {2}ACTIVE, \d+ s left {2}\d+ applied$/m);
    const json = JSON.parse((await cli('list', '--json')).out) as { faults: Array<{ id: string; timeLeftMs: number }> };
    expect(json.faults.find((f) => f.id === 'cli-storm')!.timeLeftMs).toBeGreaterThan(0);
    expect((await cli('update', 'cli-storm', '{ status: 500 }')).out).toMatch(/^updated cli-storm \(status\)$/m);
    expect((await cli('disable', 'cli-storm')).out).toMatch(/^disabled cli-storm/m);
    expect((await cli('list')).out).toMatch(/^cli-storm {2}status {2}live {2}DISABLED, /m);
    const bad = await cli('add', '{ id: x, kind: no-such-kind }');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/CLI_FAULT_REFUSED: fault add: the simulator answered 400/);
    expect((await cli('rm', 'cli-storm')).out).toMatch(/^removed cli-storm$/m);
    const again = await cli('rm', 'cli-storm');
    expect(again.code).toBe(2);
    expect(again.err).toMatch(/there is no such fault/);
  }, 180_000);
});
