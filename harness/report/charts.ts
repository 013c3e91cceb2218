import { createRequire } from 'node:module';
import type * as echarts from 'echarts';
import type { ProviderTimeline, Report } from './report.js';

const STATUS_COLORS: Record<string, string> = {
  ok: '#2e9d5b',
  rate: '#d9822b',
  overload: '#c23b22',
  error: '#8e44ad',
  none: '#555',
};

function statusClass(status: number): keyof typeof STATUS_COLORS {
  if (status === 200) return 'ok';
  if (status === 429) return 'rate';
  if (status === 529 || status === 503) return 'overload';
  if (status === 0) return 'none';
  return 'error';
}

// ECharts (62 MB installed, ~1,000 modules as ESM) loads when the first chart is drawn, not with the
// harness: validate, explore's workers and simulated runs that write no HTML never pay for it. Its
// CommonJS build is one file, so the load is one read; require keeps report writing synchronous.
let lib: typeof echarts | undefined;
const load = (): typeof echarts => (lib ??= createRequire(import.meta.url)('echarts') as typeof echarts);

/** Renders an ECharts option to a static SVG string (server-side, no DOM). */
function svg(option: echarts.EChartsOption, width: number, height: number): string {
  const chart = load().init(null, null, { renderer: 'svg', ssr: true, width, height });
  chart.setOption({ animation: false, textStyle: { fontFamily: 'system-ui, sans-serif' }, ...option });
  const out = chart.renderToSVGString();
  chart.dispose();
  return out;
}

/** Latency of answered requests, as a histogram. */
export function latencyChart(r: Report): string {
  const labels = r.series.latency.boundsMs.map((b) => (b < 0 ? '> 60 s' : b >= 1000 ? `≤ ${b / 1000} s` : `≤ ${b} ms`));
  return svg(
    {
      title: { text: 'Latency of answered requests', textStyle: { fontSize: 14 } },
      grid: { left: 50, right: 20, top: 40, bottom: 40 },
      xAxis: { type: 'category', data: labels },
      yAxis: { type: 'value', name: 'requests' },
      series: [{ type: 'bar', data: r.series.latency.counts, itemStyle: { color: '#3b6fb6' } }],
    },
    640,
    280,
  );
}

/** The time failing over added, as a histogram. */
export function failoverChart(r: Report): string {
  const values = r.series.failoverAddedMs;
  if (values.length === 0) return '<p class="muted">No request needed a failover.</p>';
  const max = Math.max(...values);
  const bins = 20;
  const width = Math.max(1, Math.ceil(max / bins));
  const counts = Array.from({ length: bins }, () => 0);
  for (const v of values) counts[Math.min(bins - 1, Math.floor(v / width))]!++;
  return svg(
    {
      title: { text: `Time added by failing over (${values.length} requests)`, textStyle: { fontSize: 14 } },
      grid: { left: 50, right: 20, top: 40, bottom: 40 },
      xAxis: { type: 'category', data: counts.map((_, i) => `${i * width}`), name: 'ms' },
      yAxis: { type: 'value', name: 'requests' },
      series: [{ type: 'bar', data: counts, itemStyle: { color: '#d9822b' } }],
    },
    640,
    280,
  );
}

/** More bars than this (a chart 640 pixels wide) are drawn as averages over a few seconds each. */
const MAX_BARS = 600;

type PerSecond = Report['series']['perSecond'][number];

/** The seconds in buckets of `width`, each the average answers per second over its seconds. */
function bucketed(s: readonly PerSecond[], width: number): PerSecond[] {
  if (width <= 1) return [...s];
  const out: PerSecond[] = [];
  for (let i = 0; i < s.length; i += width) {
    const part = s.slice(i, i + width);
    const avg = (key: 'ok' | 'clientError' | 'serverError' | 'none') =>
      Math.round((part.reduce((a, x) => a + x[key], 0) / part.length) * 10) / 10;
    out.push({
      t: part[0]!.t,
      ok: avg('ok'),
      clientError: avg('clientError'),
      serverError: avg('serverError'),
      none: avg('none'),
    });
  }
  return out;
}

/** Answers per second by outcome class (a long run's as averages over buckets of seconds). */
export function throughputChart(r: Report): string {
  const width = Math.ceil(r.series.perSecond.length / MAX_BARS);
  const s = bucketed(r.series.perSecond, width);
  const series = (name: string, key: 'ok' | 'clientError' | 'serverError' | 'none', color: string) => ({
    name,
    type: 'bar' as const,
    stack: 'all',
    data: s.map((x) => x[key]),
    itemStyle: { color },
  });
  return svg(
    {
      title: {
        text: width > 1 ? `Client answers per second (average over ${width} s)` : 'Client answers per second',
        textStyle: { fontSize: 14 },
      },
      legend: { bottom: 0, itemGap: 24 },
      grid: { left: 50, right: 20, top: 40, bottom: 60 },
      xAxis: { type: 'category', data: s.map((x) => `${x.t}`), name: 's' },
      yAxis: { type: 'value' },
      series: [
        series('2xx', 'ok', STATUS_COLORS.ok!),
        series('4xx', 'clientError', STATUS_COLORS.rate!),
        series('5xx', 'serverError', STATUS_COLORS.overload!),
        series('no answer', 'none', STATUS_COLORS.none!),
      ],
    },
    640,
    260,
  );
}

/** The timeline's plot width in pixels: the chart's 900 less the grid's margins (170 + 20). */
const TIMELINE_PLOT_PX = 710;

/**
 * Waits in the same lane that overlap or lie less than `gapS` apart, as one band each: a day's
 * 16 000 announced waits are a few hundred bands at 2 pixels a second's worth of the axis, and the
 * picture is the same (ECharts drew each as a path, 2.5 s of CPU and 200 MiB for one chart).
 */
export function mergedBands(
  windows: ReadonlyArray<readonly [number, number, number]>,
  gapS: number,
): Array<[number, number, number]> {
  const sorted = [...windows].sort((a, b) => a[2] - b[2] || a[0] - b[0]);
  const out: Array<[number, number, number]> = [];
  for (const [from, to, lane] of sorted) {
    const last = out.at(-1);
    if (last && last[2] === lane && from <= last[1] + gapS) last[1] = Math.max(last[1], to);
    else out.push([from, to, lane]);
  }
  return out;
}

/**
 * Attempts of one class as points, one per lane and `stepS` of the axis (the first there): points
 * closer than a pixel are drawn on top of each other by a 6-pixel symbol anyway.
 */
export function distinctPoints(
  attempts: ReadonlyArray<readonly [number, number, number]>,
  stepS: number,
): Array<[number, number]> {
  const seen = new Set<string>();
  const out: Array<[number, number]> = [];
  for (const [t, lane] of attempts) {
    const cell = `${lane}:${Math.floor(t / stepS)}`;
    if (seen.has(cell)) continue;
    seen.add(cell);
    out.push([t, lane]);
  }
  return out;
}

/**
 * One provider's attempts over time, one lane per key and model, coloured by status, with every
 * announced wait drawn as a shaded band across its lane: an attempt inside a band arrived before
 * the wait ended. `untilS` gives every provider's chart the same time axis. What lies closer than
 * half a pixel is drawn once (the report's data keeps every attempt and wait).
 */
export function timelineChart(p: ProviderTimeline, untilS: number): string {
  const height = Math.max(170, 110 + 40 * p.lanes.length);
  const axisS = Math.max(1, Math.ceil(untilS));
  const halfPixelS = axisS / TIMELINE_PLOT_PX / 2;
  const classes = ['ok', 'rate', 'overload', 'error', 'none'] as const;
  const names: Record<(typeof classes)[number], string> = {
    ok: '200',
    rate: '429',
    overload: '503 / 529',
    error: 'other error',
    none: 'no status',
  };
  const lanes = p.lanes.length;
  return svg(
    {
      title: { text: `${p.id}: attempts and announced waits`, textStyle: { fontSize: 14 } },
      legend: { bottom: 0, itemGap: 24 },
      grid: { left: 170, right: 20, top: 36, bottom: 70 },
      xAxis: { type: 'value', name: 's', min: 0, max: axisS, axisLine: { onZero: false } },
      // Lanes as numbers, so that a band can span its lane's height.
      yAxis: {
        type: 'value',
        min: -0.5,
        max: lanes - 0.5,
        inverse: true,
        axisLabel: { customValues: p.lanes.map((_, i) => i), formatter: (v: number) => p.lanes[v] ?? '' },
        axisTick: { customValues: p.lanes.map((_, i) => i) },
        splitLine: { show: false },
      },
      series: [
        ...classes.map((c, ci) => ({
          name: names[c],
          type: 'scatter' as const,
          symbolSize: 6,
          itemStyle: { color: STATUS_COLORS[c] },
          data: distinctPoints(
            p.attempts.filter((a) => statusClass(a[2]) === c),
            halfPixelS,
          ),
          ...(ci === 0
            ? {
                markArea: {
                  silent: true,
                  itemStyle: { color: 'rgba(217,130,43,0.22)', borderColor: 'rgba(217,130,43,0.6)', borderWidth: 1 },
                  data: mergedBands(p.windows, halfPixelS).map((w) => [
                    { coord: [w[0], w[2] - 0.42] },
                    { coord: [Math.min(w[1], axisS), w[2] + 0.42] },
                  ]),
                },
              }
            : {}),
        })),
      ],
    } as echarts.EChartsOption,
    900,
    height,
  );
}
