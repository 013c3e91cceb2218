import { parseDuration } from '../../simulator/index.js';
import { copyDoc, loadDurationMs, type ScenarioDoc } from './scenario-doc.js';

/** A simpler variant of a scenario, and what was taken away. */
export interface ShrinkCandidate {
  what: string;
  doc: ScenarioDoc;
}

/** The shortest load a shrink halves down to, and the lowest rate it lowers to. */
export const SHRINK_FLOOR = { durationMs: 1000, rate: 1 } as const;

const asList = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The model names requests pin (`provider/model` or a bare model), `auto` left out. */
function pinnedModels(doc: ScenarioDoc): string[] {
  const models = doc.load?.requests?.models ?? [];
  return models.map((m) => (typeof m === 'string' ? m : m.model)).filter((m) => m !== 'auto');
}

/**
 * Providers a variant must keep: those a fault names, those a pinned `provider/model` names, and
 * the last provider left offering a pinned bare model.
 */
export function neededProviders(doc: ScenarioDoc): Set<string> {
  const needed = new Set<string>();
  for (const f of doc.faults ?? []) if (f.kind !== 'redis') for (const id of asList(f.match?.provider)) needed.add(id);
  for (const m of pinnedModels(doc)) {
    const slash = m.indexOf('/');
    if (slash > 0 && doc.providers.some((p) => p.id === m.slice(0, slash))) needed.add(m.slice(0, slash));
    const offering = doc.providers.filter((p) => p.models.includes(m));
    if (offering.length === 1) needed.add(offering[0]!.id);
  }
  return needed;
}

/**
 * Providers no fault can touch: random weather's shelter, or any provider a hand-written scenario
 * leaves calm. A fault that names no provider touches them all.
 */
export function unfaultedProviders(doc: ScenarioDoc): string[] {
  const faults = (doc.faults ?? []).filter((f) => f.kind !== 'redis');
  if (faults.some((f) => f.match?.provider === undefined)) return [];
  const touched = new Set(faults.flatMap((f) => asList(f.match?.provider)));
  return doc.providers.map((p) => p.id).filter((id) => !touched.has(id));
}

function withoutFault(doc: ScenarioDoc, i: number): ShrinkCandidate {
  const out = copyDoc(doc);
  const [gone] = out.faults!.splice(i, 1);
  return { what: `drop fault ${gone!.id}`, doc: out };
}

function withoutProvider(doc: ScenarioDoc, id: string): ShrinkCandidate {
  const out = copyDoc(doc);
  out.providers = out.providers.filter((p) => p.id !== id);
  return { what: `drop provider ${id}`, doc: out };
}

/** The load halved; faults that would start after its end are dropped with it (they could match nothing). */
function halved(doc: ScenarioDoc): ShrinkCandidate | undefined {
  const durationMs = loadDurationMs(doc);
  const next = Math.max(SHRINK_FLOOR.durationMs, Math.round(durationMs / 200) * 100);
  if (next >= durationMs) return undefined;
  const out = copyDoc(doc);
  out.load!.duration = next;
  out.faults = (out.faults ?? []).filter((f) => f.kind === 'redis' || (parseDuration(f.at ?? 0) ?? 0) < next);
  return { what: `halve the load to ${next} ms`, doc: out };
}

/** Requests no longer asking for one of the load's model choices (one always stays). */
function withoutModelChoice(doc: ScenarioDoc, i: number): ShrinkCandidate {
  const out = copyDoc(doc);
  const [gone] = out.load!.requests!.models!.splice(i, 1);
  return { what: `drop the model choice ${typeof gone === 'string' ? gone : gone!.model}`, doc: out };
}

function withoutQuota(doc: ScenarioDoc, provider: number, quota: number): ShrinkCandidate {
  const out = copyDoc(doc);
  const p = out.providers[provider]!;
  p.quotas = p.quotas!.filter((_, j) => j !== quota);
  return { what: `drop quota ${quota} of provider ${p.id}`, doc: out };
}

function slower(doc: ScenarioDoc): ShrinkCandidate | undefined {
  const rate = doc.load?.rate;
  if (rate === undefined || rate <= SHRINK_FLOOR.rate) return undefined;
  const out = copyDoc(doc);
  out.load!.rate = Math.max(SHRINK_FLOOR.rate, Math.floor(rate / 2));
  return { what: `halve the rate to ${out.load!.rate}/s`, doc: out };
}

/**
 * Every one-step simplification of `doc`, simplest-first: each fault dropped, each model choice
 * of the load dropped (one always stays: a pinned model no longer keeps its provider), each
 * provider nothing needs dropped (one always stays), the load halved, the rate halved, and last
 * each quota dropped (a squeeze the weather drew, or one of the scenario's own). A provider is
 * kept when faults or pinned models need it, or when it is the last one no fault touches. Some may not validate; the
 * shrinker skips those.
 */
export function shrinkCandidates(doc: ScenarioDoc): ShrinkCandidate[] {
  const needed = neededProviders(doc);
  // The weather's bound holds while shrinking: the last calm provider stays, so that a failure is
  // never shrunk into a world where nobody could serve.
  const calm = unfaultedProviders(doc);
  if (calm.length === 1) needed.add(calm[0]!);
  const providers = doc.providers.length > 1 ? doc.providers.filter((p) => !needed.has(p.id)) : [];
  const choices = doc.load?.requests?.models ?? [];
  return [
    ...(doc.faults ?? []).map((_, i) => withoutFault(doc, i)),
    // Pinned choices go first: `auto` needs no provider, so keeping it frees the most.
    ...(choices.length > 1
      ? choices
          .map((c, i) => ({ i, auto: (typeof c === 'string' ? c : c.model) === 'auto' }))
          .sort((x, y) => Number(x.auto) - Number(y.auto))
          .map(({ i }) => withoutModelChoice(doc, i))
      : []),
    ...providers.map((p) => withoutProvider(doc, p.id)),
    halved(doc),
    slower(doc),
    ...doc.providers.flatMap((p, i) => (p.quotas ?? []).map((_, j) => withoutQuota(doc, i, j))),
  ].filter((c) => c !== undefined);
}
