// Attempts at each point of the engine's stages, for tests of one stage alone: the stages before
// it run for real (a made-up attempt would drift from what route builds), and any refusal on the
// way fails the test loudly.
import { createFakeClock, type FakeClock } from '../../simulator/core/fake-clock.js';
import { Engine } from '../../simulator/engine/engine.js';
import type { Reply } from '../../simulator/engine/reply.js';
import {
  isChat,
  isRefused,
  type Admitted,
  type Attempt,
  type Authenticated,
  type ChatRoute,
  type Faulted,
  type Parsed,
  type Refused,
} from '../../simulator/engine/stages/attempt.js';
import { authenticate } from '../../simulator/engine/stages/authenticate.js';
import { lookUpCache } from '../../simulator/engine/stages/cache.js';
import { applyFaults } from '../../simulator/engine/stages/fault.js';
import { parse } from '../../simulator/engine/stages/parse.js';
import { admit } from '../../simulator/engine/stages/quota.js';
import { route } from '../../simulator/engine/stages/route.js';
import type { SimRequest } from '../../simulator/vendors/types.js';
import { ALL_VENDORS_YAML, scenarioFrom } from './scenario.js';

/** An engine over `yaml` (one provider per vendor by default) with the scenario's keys, and its fake clock. */
export function stageEngine(yaml = ALL_VENDORS_YAML, seed = 7): { engine: Engine; clock: FakeClock } {
  const clock = createFakeClock(Date.UTC(2026, 0, 1));
  const scenario = scenarioFrom(yaml);
  const keyValues = new Map<string, string>();
  for (const p of scenario.providers)
    for (const k of p.keys) if (k.value !== undefined) keyValues.set(`${p.id}/${k.id}`, k.value);
  return { engine: new Engine(scenario, { seed, keyValues, startedAt: clock.now() }), clock };
}

/** `result` as the attempt a stage handed on; throws if it was refused (or never became an attempt). */
export function handedOn<A extends Attempt>(result: A | Refused | Reply): A {
  if ('steps' in result) throw new Error(`expected an attempt, got a bare ${result.status} reply`);
  if (isRefused(result)) throw new Error(`expected the attempt handed on, got ${JSON.stringify(result.refusal)}`);
  return result as A;
}

/** `result` as a refused attempt; throws if it was handed on. */
export function refused(result: Attempt | Reply): Refused {
  if ('steps' in result || !isRefused(result)) throw new Error('expected a refusal');
  return result;
}

/** `req` routed and authenticated as a chat request, ready to parse. */
export function authenticatedChat(engine: Engine, req: SimRequest, now: number): Authenticated & { route: ChatRoute } {
  const attempt = handedOn(authenticate(handedOn(route(engine, req, now))));
  if (!isChat(attempt)) throw new Error('expected a chat route');
  return attempt;
}

/** `req` through parse, ready for the faults. */
export function parsedChat(engine: Engine, req: SimRequest, now: number): Parsed {
  return handedOn(parse(authenticatedChat(engine, req, now), false));
}

/** `req` through the faults and the cache lookup, ready for the quotas. */
export function cachedChat(engine: Engine, req: SimRequest, now: number): Faulted {
  return lookUpCache(handedOn(applyFaults(parsedChat(engine, req, now), engine.faults)));
}

/** `req` admitted, ready to answer. */
export function admittedChat(engine: Engine, req: SimRequest, now: number): Admitted {
  return handedOn(admit(cachedChat(engine, req, now)));
}
