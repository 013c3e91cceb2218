import { timingSafeEqual } from 'node:crypto';
import { isGone, writeChunk, type ServerReply, type ServerRequest } from './server-exchange.js';
import type { Ledger, LedgerQuery } from '../ledger/ledger.js';
import type { Simulator } from '../simulator.js';
import { decodePathSegment } from './decode-path-segment.js';
import { readBody } from './read-body.js';
import { streamControlEvents } from './control-events.js';
import { CONTROL_PREFIX } from '../core/control-prefix.js';
import { isSimError } from '../core/errors.js';
import type { FaultChannel, FaultOp } from '../shared-faults/fault-channel.js';
import type { SharedFaultEntry } from '../shared-faults/shared-fault-entry.js';

function json(res: ServerReply, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function problem(res: ServerReply, status: number, message: string, issues?: string[], code?: string): void {
  json(res, status, { error: { ...(code ? { code } : {}), message, ...(issues ? { issues } : {}) } });
}

/**
 * Applies a validated fault change: here alone, or through the group's channel to every worker
 * (this one included). False once a 503 has been answered: it could not be shared, so no worker applied it.
 */
async function applyChange(
  sim: Simulator,
  channel: FaultChannel | undefined,
  res: ServerReply,
  change: { op: FaultOp; id: string; entry: SharedFaultEntry },
): Promise<boolean> {
  if (!channel) {
    sim.applyFaultEntry(change.op, change.id, change.entry);
    return true;
  }
  try {
    await channel.share(change.op, change.id, change.entry);
    return true;
  } catch (error) {
    if (!isSimError(error, 'SIM_FAULT_NOT_SHARED')) throw error;
    problem(res, 503, error.message, undefined, error.code);
    return false;
  }
}

const faultInfo = (sim: Simulator, id: string) => sim.listFaults().find((f) => f.id === id) ?? null;

function numberParam(params: URLSearchParams, name: string): number | undefined {
  const raw = params.get(name);
  if (raw === null || raw === '') return undefined;
  const n = Number(raw);
  return Number.isFinite(n) ? n : Number.NaN;
}

function ledgerQuery(params: URLSearchParams): LedgerQuery | string {
  const q: LedgerQuery = {};
  for (const name of ['provider', 'key', 'model', 'correlationId'] as const) {
    const v = params.get(name);
    if (v !== null) q[name] = v;
  }
  for (const name of ['status', 'since', 'until', 'offset', 'limit'] as const) {
    const v = numberParam(params, name);
    if (v === undefined) continue;
    if (Number.isNaN(v)) return `${name} must be a number`;
    q[name] = v;
  }
  q.limit = Math.min(q.limit ?? 1000, 10_000);
  return q;
}

async function streamJsonl(ledger: Ledger, res: ServerReply): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  let batch = '';
  let n = 0;
  for (const row of ledger.rowsIterator()) {
    batch += `${JSON.stringify(row)}\n`;
    if (++n % 1000 === 0) {
      // A client that leaves mid-export ends it (a drain that never comes would hold the loop for ever).
      if (!writeChunk(res, batch)) await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
      if (isGone(res)) return;
      batch = '';
    }
  }
  res.end(batch);
}

const LOOPBACK_HOST = /^(127\.0\.0\.1|\[::1\]|localhost)(:\d+)?$/i;
const LOOPBACK_ORIGIN = /^https?:\/\/(127\.0\.0\.1|\[::1\]|localhost)(:\d+)?$/i;

/**
 * Why a control request is refused, if it is: a Host that is not loopback (a DNS-rebinding page
 * reaching the simulator under its own name), an Origin that is not loopback (another site's
 * page), a missing or wrong token when one is set, or a body that is not JSON (a cross-site form
 * or `text/plain` POST needs no preflight; a JSON one does, and is never granted).
 */
function refusal(req: ServerRequest, method: string, token: string | undefined): [number, string] | undefined {
  if (!LOOPBACK_HOST.test(req.headers.host ?? ''))
    return [
      403,
      'Failed to serve the control API: the Host header is not a loopback address. Use 127.0.0.1, [::1] or localhost.',
    ];
  // A page's requests carry its Origin (`null` from a sandbox or a file); tools such as curl send none.
  const from = req.headers.origin;
  if (from !== undefined && !LOOPBACK_ORIGIN.test(from))
    return [403, 'Failed to serve the control API: requests from other origins are refused.'];
  if (token !== undefined) {
    const given = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
    if (!given || !sameToken(given, token))
      return [401, 'Failed to serve the control API: send Authorization: Bearer <the control token>.'];
  }
  if ((method === 'POST' || method === 'PUT' || method === 'PATCH') && !isJson(req.headers['content-type']))
    return [415, 'Failed to serve the control API: send the body as JSON (content-type: application/json).'];
  return undefined;
}

function isJson(contentType: string | undefined): boolean {
  return /^application\/json\s*(;|$)/i.test(contentType ?? '');
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const NO_BODY = Symbol('no body');

/** The request's JSON body, or NO_BODY once a problem has been answered. */
async function readJson(req: ServerRequest, res: ServerReply, action: string, hint: string): Promise<unknown> {
  const { body, tooLarge } = await readBody(req, 1024 * 1024);
  if (tooLarge) {
    problem(res, 413, `Failed to ${action}: the body is over 1 MiB.`);
    return NO_BODY;
  }
  try {
    return JSON.parse(body);
  } catch {
    problem(res, 400, `Failed to ${action}: the body is not valid JSON. ${hint}`);
    return NO_BODY;
  }
}

/** The fault id of a path segment, or undefined once a 400 has been answered. */
function faultId(res: ServerReply, action: string, segment: string): string | undefined {
  const id = decodePathSegment(segment);
  if (id === undefined)
    problem(
      res,
      400,
      `Failed to ${action}: its id in the path is not valid percent-encoding (${JSON.stringify(segment.slice(0, 200))}). Encode the id with encodeURIComponent; GET ${CONTROL_PREFIX}/faults lists them.`,
    );
  return id;
}

/** PATCH /faults/:id: changes a fault's fields or turns it on or off (`{ "enabled": false }`). */
async function updateFault(
  sim: Simulator,
  channel: FaultChannel | undefined,
  req: ServerRequest,
  res: ServerReply,
  segment: string,
) {
  const id = faultId(res, 'update a fault', segment);
  if (id === undefined) {
    req.resume();
    return;
  }
  const patch = await readJson(req, res, `update fault "${id}"`, 'Send the fields to change, e.g. {"status": 503}.');
  if (patch === NO_BODY) return;
  const result = sim.planFaultUpdate(id, patch);
  if (result === undefined)
    return problem(
      res,
      404,
      `Failed to update fault "${id}": there is no such fault. GET ${CONTROL_PREFIX}/faults lists them.`,
    );
  if (!result.ok)
    return problem(
      res,
      400,
      `Failed to update fault "${id}": the result is not valid. Fix the fields listed in "issues".`,
      result.issues,
    );
  if (!(await applyChange(sim, channel, res, { op: 'update', id, entry: result.entry }))) return;
  return json(res, 200, { fault: faultInfo(sim, id) });
}

/** Options of the control API. */
export interface ControlOptions {
  /** A bearer token every control request must carry; without one, loopback callers only. */
  token?: string;
  /**
   * The ledger `/ledger`, `/ledger.jsonl` and `/events` answer from (default: the simulator's
   * own): a worker of a group passes the group's, which holds every worker's ended attempts.
   */
  ledger?: Ledger;
  /** Where fault changes go when the simulator is a worker of a group (default: applied here alone). */
  faults?: FaultChannel;
}

/**
 * Serves the control API: health, endpoints, the ledger (JSON query or JSONL export), a live
 * event stream (server-sent events: attempts, totals, quota, faults), live faults (list, add, update, enable,
 * disable, remove, as Toxiproxy's toxics) and quota state. Only loopback Hosts and
 * Origins are served, POST bodies must be JSON, and a token is required when one is set.
 */
export async function handleControl(
  sim: Simulator,
  req: ServerRequest,
  res: ServerReply,
  origin: string,
  options: ControlOptions = {},
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://control');
  const path = url.pathname.slice(CONTROL_PREFIX.length) || '/';
  const method = req.method ?? 'GET';
  const route = `${method} ${path}`;
  const refused = refusal(req, method, options.token);
  if (refused) {
    req.resume();
    return problem(res, refused[0], refused[1]);
  }
  if (route === 'GET /health') {
    return json(res, 200, {
      status: 'ok',
      scenario: sim.scenario.name,
      seed: sim.seed,
      startedAt: sim.startedAt,
      uptimeMs: Math.round(sim.clock.now() - sim.startedAt),
      attempts: sim.ledger.size,
      dropped: sim.ledger.dropped,
    });
  }
  if (route === 'GET /providers') return json(res, 200, { providers: sim.endpoints(origin) });
  if (route === 'GET /quota') return json(res, 200, { quota: sim.quota() });
  const ledger = options.ledger ?? sim.ledger;
  if (route === 'GET /ledger') {
    const q = ledgerQuery(url.searchParams);
    if (typeof q === 'string') return problem(res, 400, `Failed to query the ledger: ${q}.`);
    const { total, rows } = ledger.query(q);
    return json(res, 200, { total, dropped: ledger.dropped, rows });
  }
  if (route === 'GET /ledger.jsonl') return streamJsonl(ledger, res);
  if (route === 'GET /events') return streamControlEvents(sim, req, res, 500, ledger);
  if (route === 'GET /faults') return json(res, 200, { faults: sim.listFaults() });
  if (route === 'POST /faults') {
    const input = await readJson(req, res, 'add a fault', 'Send a fault object as in a scenario\'s "faults" list.');
    if (input === NO_BODY) return;
    const result = sim.planFault(input);
    if (!result.ok)
      return problem(
        res,
        400,
        'Failed to add a fault: it is not valid. Fix the fields listed in "issues".',
        result.issues,
      );
    const id = result.entry.spec.id;
    if (!(await applyChange(sim, options.faults, res, { op: 'add', id, entry: result.entry }))) return;
    return json(res, 201, { fault: faultInfo(sim, id) });
  }
  const patch = /^PATCH \/faults\/([^/]+)$/.exec(route);
  if (patch) return updateFault(sim, options.faults, req, res, patch[1]!);
  const del = /^DELETE \/faults\/([^/]+)$/.exec(route);
  if (del) {
    const id = faultId(res, 'remove a fault', del[1]!);
    if (id === undefined) return;
    if (!sim.listFaults().some((f) => f.id === id))
      return problem(
        res,
        404,
        `Failed to remove fault "${id}": there is no such fault. GET ${CONTROL_PREFIX}/faults lists them.`,
      );
    if (!(await applyChange(sim, options.faults, res, { op: 'remove', id, entry: { removed: true } }))) return;
    res.writeHead(204).end();
    return;
  }
  return problem(
    res,
    404,
    `Failed to find ${route} in the control API. Try GET ${CONTROL_PREFIX}/health, /providers, /ledger, /ledger.jsonl, /events, /faults, /quota.`,
  );
}
