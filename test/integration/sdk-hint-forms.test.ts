import Anthropic from '@anthropic-ai/sdk';
import { createOpenAI } from '@ai-sdk/openai';
import { GoogleGenAI } from '@google/genai';
import { Mistral } from '@mistralai/mistralai';
import { generateText } from 'ai';
import Groq from 'groq-sdk';
import OpenAI from 'openai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serve, type Served } from '../helpers/serve.js';

// Which wait hints each official SDK honours, found by asking each SDK to retry a 429 that
// announces a wait in one form, and reading from the ledger whether the retry waited for it.
// The README's table is generated from these findings: run with UPDATE_SDK_TABLE=1 to rewrite
// it; otherwise a difference fails this test.

const ROOT = join(import.meta.dirname, '..', '..');
const version = (pkg: string) =>
  (JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;

type Form = 'ms' | 'seconds' | 'http-date' | 'reset-header' | 'body';
const FORMS: Form[] = ['ms', 'seconds', 'http-date', 'reset-header', 'body'];

interface Probe {
  sdk: string;
  pkg: string;
  /** The profile it is probed against. */
  vendor: string;
  model: string;
  key: string;
  /** A wait well above the SDK's own first backoff, so a retry that waited it read the hint. */
  waitMs: number;
  /** Forms the vendor cannot carry. */
  unsupported?: Form[];
  /** One call; `retries` undefined means the SDK's defaults. */
  call(s: Served, retries: number | undefined): Promise<unknown>;
}

const PROBES: Probe[] = [
  {
    sdk: 'openai',
    pkg: 'openai',
    vendor: 'openai',
    model: 'gpt-4o-mini',
    key: 'sk-sim-openai',
    waitMs: 2000,
    call: (s, retries) =>
      new OpenAI({
        baseURL: `${s.origin}/p/v1`,
        apiKey: 'sk-sim-openai',
        ...(retries === undefined ? {} : { maxRetries: retries }),
      }).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  },
  {
    sdk: '@anthropic-ai/sdk',
    pkg: '@anthropic-ai/sdk',
    vendor: 'anthropic',
    model: 'claude-haiku-4-5',
    key: 'sk-ant-sim',
    waitMs: 2000,
    call: (s, retries) =>
      new Anthropic({
        baseURL: `${s.origin}/p`,
        apiKey: 'sk-ant-sim',
        ...(retries === undefined ? {} : { maxRetries: retries }),
      }).messages.create({ model: 'claude-haiku-4-5', max_tokens: 32, messages: [{ role: 'user', content: 'hi' }] }),
  },
  {
    sdk: 'groq-sdk',
    pkg: 'groq-sdk',
    vendor: 'groq',
    model: 'llama-3.1-8b-instant',
    key: 'gsk-sim',
    waitMs: 2000,
    call: (s, retries) =>
      new Groq({
        baseURL: `${s.origin}/p`,
        apiKey: 'gsk-sim',
        ...(retries === undefined ? {} : { maxRetries: retries }),
      }).chat.completions.create({ model: 'llama-3.1-8b-instant', messages: [{ role: 'user', content: 'hi' }] }),
  },
  {
    sdk: '@google/genai (retryOptions set)',
    pkg: '@google/genai',
    vendor: 'gemini',
    model: 'gemini-2.5-flash',
    key: 'sim-gemini',
    waitMs: 2000,
    unsupported: ['reset-header'],
    call: (s, retries) =>
      new GoogleGenAI({
        apiKey: 'sim-gemini',
        httpOptions: {
          baseUrl: `${s.origin}/p`,
          ...(retries === undefined
            ? {}
            : { retryOptions: { attempts: retries + 1, initialDelay: 0.05, maxDelay: 0.1, jitter: 0 } }),
        },
      }).models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' }),
  },
  {
    sdk: 'ai (Vercel AI SDK)',
    pkg: 'ai',
    vendor: 'openai',
    model: 'gpt-4o-mini',
    key: 'sk-sim-openai',
    waitMs: 6000,
    call: (s, retries) =>
      generateText({
        model: createOpenAI({ baseURL: `${s.origin}/p/v1`, apiKey: 'sk-sim-openai' })('gpt-4o-mini'),
        prompt: 'hi',
        ...(retries === undefined ? {} : { maxRetries: retries }),
      }),
  },
  {
    sdk: '@mistralai/mistralai (retryConfig set)',
    pkg: '@mistralai/mistralai',
    vendor: 'mistral',
    model: 'mistral-small-latest',
    key: 'sim-mistral',
    waitMs: 3000,
    call: (s, retries) =>
      new Mistral({
        serverURL: `${s.origin}/p`,
        apiKey: 'sim-mistral',
        ...(retries === undefined
          ? {}
          : {
              retryConfig: {
                strategy: 'backoff' as const,
                // No attempt limit, only elapsed time (every probe's 429 is answered once, so none loops).
                backoff: { initialInterval: 50, maxInterval: 10_000, exponent: 1.5, maxElapsedTime: 20_000 },
                retryConnectionErrors: false,
              },
            }),
      }).chat.complete({ model: 'mistral-small-latest', messages: [{ role: 'user', content: 'hi' }] }),
  },
];

const world = (p: Probe, fault: string) => `
version: 1
name: hint-probe
providers:
  - { id: p, vendor: ${p.vendor}, models: [${p.model}], keys: [{ id: main, value: ${p.key} }], quotas: [{ metric: requests, limit: 1000, per: 1m }, { metric: tokens, limit: 1000000, per: 1m }], latency: { completionTokens: 3 } }
faults:
  - ${fault}`;

/** Whether the SDK's retry waited the announced wait (from the ledger), or `n/a`. */
async function honours(p: Probe, form: Form): Promise<'yes' | 'no' | 'n/a'> {
  if (p.unsupported?.includes(form)) return 'n/a';
  const s = await serve(
    world(
      p,
      `{ id: f, kind: status, match: { firstN: 1 }, status: 429, hint: { form: ${form}, after: ${p.waitMs}ms } }`,
    ),
  );
  try {
    await p.call(s, 1);
    const [first, second] = [s.sim.ledger.row(0)!, s.sim.ledger.row(1)!];
    const where = `${p.sdk} × ${form}`;
    expect(first.status, where).toBe(429);
    expect(second?.status, where).toBe(200);
    if (!(first.hintMs! >= p.waitMs))
      throw new Error(`${where}: the 429 announced ${first.hintMs} (${first.hintForm})`);
    return second.arrivalAt - first.arrivalAt >= first.hintMs! - 5 ? 'yes' : 'no';
  } finally {
    await s.close();
  }
}

/** Attempts made after a 429 that says `x-should-retry: false` (then 200s): 1 means obeyed. */
async function obeysShouldRetry(p: Probe): Promise<'yes' | 'no'> {
  const s = await serve(
    world(
      p,
      `{ id: f, kind: status, match: { firstN: 1 }, status: 429, shouldRetry: false, hint: { form: ms, after: 50ms } }`,
    ),
  );
  try {
    await p.call(s, 1).catch(() => undefined);
    return s.sim.ledger.size === 1 ? 'yes' : 'no';
  } finally {
    await s.close();
  }
}

/** Retries the SDK makes by default against a 429 that asks for 50 ms. */
async function defaultRetries(p: Probe): Promise<number> {
  const s = await serve(world(p, `{ id: f, kind: status, status: 429, hint: { form: ms, after: 50ms } }`));
  try {
    await p.call(s, undefined).catch(() => undefined);
    return s.sim.ledger.size - 1;
  } finally {
    await s.close();
  }
}

const MARK = { yes: '✓', no: '—', 'n/a': 'n/a' } as const;
const START = '<!-- sdk-hint-forms:start (generated by test/integration/sdk-hint-forms.test.ts) -->';
const END = '<!-- sdk-hint-forms:end -->';

describe('the hint forms each official SDK honours', () => {
  it('match the README table', { timeout: 60_000 }, async () => {
    const rows = await Promise.all(
      PROBES.map(async (p) => {
        const [forms, should, retries] = await Promise.all([
          Promise.all(FORMS.map((f) => honours(p, f))),
          obeysShouldRetry(p),
          defaultRetries(p),
        ]);
        return `| ${p.sdk} ${version(p.pkg)} | ${p.vendor} | ${forms.map((f) => MARK[f]).join(' | ')} | ${MARK[should]} | ${retries} |`;
      }),
    );
    const table = [
      START,
      '| SDK | probed against | `retry-after-ms` | `retry-after` (seconds) | `retry-after` (HTTP-date) | reset headers | wait in the body | obeys `x-should-retry: false` | retries by default |',
      '|---|---|---|---|---|---|---|---|---|',
      ...rows,
      END,
    ].join('\n');
    const readmePath = join(ROOT, 'README.md');
    const readme = readFileSync(readmePath, 'utf8');
    const at = readme.indexOf(START);
    const end = readme.indexOf(END);
    if (process.env.UPDATE_SDK_TABLE === '1') {
      if (at < 0 || end < 0) throw new Error('README.md has no sdk-hint-forms markers');
      writeFileSync(readmePath, readme.slice(0, at) + table + readme.slice(end + END.length));
      return;
    }
    expect(at, 'README.md has no sdk-hint-forms table; run with UPDATE_SDK_TABLE=1').toBeGreaterThanOrEqual(0);
    expect(readme.slice(at, end + END.length)).toBe(table);
  });
});
