// The live dashboard's decisions, as plain functions the page embeds by their source text
// (`DASHBOARD_LOGIC`): each is self-contained (no imports, no module state), so vitest judges
// them without a browser and the page runs the same code.

/** One attempt as the event stream sends it: [s, provider, status, announced wait ms, key, model, seq]. */
export type PageAttempt = [number, string, number, number | null, string, string | null, number];

/** A fault as a tick lists it (times in s since the simulator's start). */
export interface PageFault {
  id: string;
  kind: string;
  origin: string;
  startAt: number;
  endAt: number | null;
  active: boolean;
  enabled: boolean;
  applied: number;
}

/** What the page shows of one fault, and which of its buttons work. */
export interface FaultView {
  text: string;
  active: boolean;
  canAdd: boolean;
  canRemove: boolean;
  canEnable: boolean;
  canDisable: boolean;
}

/** The colour class of a status. */
export function statusClass(s: number): string {
  return s >= 200 && s < 300
    ? 'ok'
    : s === 429
      ? 'rate'
      : s === 529 || s === 503
        ? 'overload'
        : s === 0
          ? 'none'
          : 'error';
}

/** Adds an announced wait [from, to] (s) to a provider's bands, merging overlaps, keeping the last 200. */
export function addBand(bands: Array<[number, number]>, from: number, to: number): void {
  const last = bands[bands.length - 1];
  if (last && from <= last[1]) {
    last[1] = Math.max(last[1], to);
    return;
  }
  bands.push([from, to]);
  if (bands.length > 200) bands.shift();
}

/** The `/ledger` pages that hold the last `max` of `total` rows, `size` rows a page. */
export function backlogPages(total: number, max: number, size: number): Array<{ offset: number; limit: number }> {
  const pages: Array<{ offset: number; limit: number }> = [];
  for (let offset = Math.max(0, total - max); offset < total; offset += size)
    pages.push({ offset, limit: Math.min(size, total - offset) });
  return pages;
}

/**
 * Joins the ledger read when the page opened with the event stream, without gaps or duplicates:
 * ticks that come before the ledger are held back, and an attempt that is in both (it ended
 * between the stream's hello and the ledger read) is drawn once, by its ledger seq.
 */
export function attemptFeed() {
  let loaded = false;
  let early: PageAttempt[] = [];
  let fromLedger = new Set<number>();
  return {
    /** The attempts of a tick that are to be drawn now. */
    stream(attempts: PageAttempt[]): PageAttempt[] {
      if (!loaded) {
        early = early.concat(attempts);
        return [];
      }
      return attempts.filter((a) => !fromLedger.has(a[6]));
    },
    /** The ledger's rows (ended ones only: the open ones will come in a tick) and the held ticks, in time order. */
    backlog(
      rows: Array<{
        seq: number;
        arrivalAt: number;
        endAt: number | null;
        provider: string;
        status: number;
        hintMs: number | null;
        key: string;
        model: string | null;
      }>,
      startedAt: number,
    ): PageAttempt[] {
      const past: PageAttempt[] = rows
        .filter((r) => r.endAt !== null)
        .map((r) => [
          Math.round(r.arrivalAt - startedAt) / 1000,
          r.provider,
          r.status,
          r.hintMs,
          r.key,
          r.model,
          r.seq,
        ]);
      fromLedger = new Set(past.map((a) => a[6]));
      const merged = past.concat(early.filter((a) => !fromLedger.has(a[6])));
      loaded = true;
      early = [];
      return merged.sort((a, b) => a[0] - b[0]);
    },
  };
}

/** What a fault's row says at `t` (s since the start): its state, the time a live one has left, its buttons. */
export function faultView(f: PageFault | undefined, t: number): FaultView {
  const off = { active: false, canEnable: false, canDisable: false };
  if (!f) return { ...off, text: 'not on the timeline', canAdd: true, canRemove: false };
  const buttons = { canAdd: !f.active, canRemove: true, canEnable: !f.enabled, canDisable: f.enabled };
  const applied = ' (' + f.applied + ' applied)';
  if (f.active) {
    const left = f.endAt === null ? 'until removed' : Math.max(0, Math.ceil(f.endAt - t)) + ' s left';
    const since = 'ACTIVE since ' + Math.max(0, f.startAt).toFixed(0) + ' s, ' + left + applied;
    return { ...buttons, text: since, active: true };
  }
  const ended = f.endAt !== null && f.endAt <= t;
  const when =
    f.startAt > t
      ? 'scheduled at ' + f.startAt.toFixed(0) + ' s'
      : ended
        ? 'ended at ' + (f.endAt as number).toFixed(0) + ' s' + applied
        : 'in its window' + applied;
  return { ...buttons, text: f.enabled ? when : 'DISABLED, ' + when, active: false };
}

/** The faults table's rows: the scenario's catalogue first, then every other fault on the timeline. */
export function faultRowIds(catalogue: Array<{ id: string }>, faults: Array<{ id: string }>): string[] {
  const ids = catalogue.map((c) => c.id);
  for (const f of faults) if (ids.indexOf(f.id) < 0) ids.push(f.id);
  return ids;
}

/** The fault form's fields, as typed. */
export interface FaultForm {
  id: string;
  kind: string;
  status: string;
  at: string;
  for: string;
  providers: string;
  /** More fields of the fault grammar, as a JSON object (e.g. {"hint": {"seconds": 5}}). */
  more: string;
}

/**
 * The control request the fault form makes: a new fault (POST) or, when its id is on the
 * timeline, a change to it (PATCH with the fields filled in). The simulator validates either
 * with the scenario schema and answers the issues; only the form's own syntax is checked here.
 */
export function faultRequest(
  form: FaultForm,
  onTimeline: string[],
): { ok: true; method: string; url: string; body: Record<string, unknown> } | { ok: false; error: string } {
  const id = form.id.trim();
  if (!id) return { ok: false, error: 'id: give the fault an id' };
  let more: unknown = {};
  if (form.more.trim()) {
    try {
      more = JSON.parse(form.more);
    } catch (e) {
      return { ok: false, error: 'more fields: not JSON (' + (e as Error).message + ')' };
    }
    if (typeof more !== 'object' || more === null || Array.isArray(more))
      return { ok: false, error: 'more fields: expected a JSON object, e.g. {"hint": {"seconds": 5}}' };
  }
  const body: Record<string, unknown> = { id, kind: form.kind };
  if (form.status.trim()) body.status = Number(form.status.trim());
  // Durations go as typed (30s, 1m30s; a bare number is ms), for the schema to read.
  if (form.at.trim()) body.at = form.at.trim();
  if (form.for.trim()) body.for = form.for.trim();
  const providers = form.providers.split(/[\s,]+/).filter(Boolean);
  if (providers.length) body.match = { provider: providers };
  Object.assign(body, more);
  const update = onTimeline.indexOf(id) >= 0;
  return update
    ? { ok: true, method: 'PATCH', url: 'control/faults/' + encodeURIComponent(id), body }
    : { ok: true, method: 'POST', url: 'control/faults', body };
}

/** The source text of every function above, for the page's script. */
export const DASHBOARD_LOGIC = [statusClass, addBand, backlogPages, attemptFeed, faultView, faultRowIds, faultRequest]
  .map((f) => f.toString())
  .join('\n');
