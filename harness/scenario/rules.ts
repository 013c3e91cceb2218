import type { Rule } from '../../simulator/index.js';
import { routerVariableNames } from '../launch/provider-env.js';
import type { RunScenario } from './schema.js';

const load: Rule<RunScenario> = (s, _ctx, push) => {
  const l = s.load;
  if (!l) return;
  if (l.mode === 'open' && l.rate === undefined && l.ramp === undefined)
    push({
      code: 'SCENARIO_MISSING_FIELD',
      path: ['load'],
      message: 'an open-loop load needs "rate" (requests per second) or "ramp"',
    });
  if (l.mode === 'open' && l.rate !== undefined && l.ramp !== undefined)
    push({ code: 'SCENARIO_INVALID_VALUE', path: ['load'], key: 'ramp', message: 'give "rate" or "ramp", not both' });
  if (l.mode === 'closed' && (l.rate !== undefined || l.ramp !== undefined))
    push({
      code: 'SCENARIO_INVALID_VALUE',
      path: ['load'],
      key: l.rate !== undefined ? 'rate' : 'ramp',
      message: 'a closed-loop load is driven by "connections", not a rate',
    });
  const names = routerVariableNames(s.providers);
  const known = new Set(names);
  for (const [name, value] of Object.entries(l.headers)) {
    for (const m of value.matchAll(/\$\{([^}]*)\}/g)) {
      if (!known.has(m[1]!))
        push({
          code: 'SCENARIO_INVALID_VALUE',
          path: ['load', 'headers', name],
          message: `unknown variable "\${${m[1]}}": headers may use the THROTTLELAB_* variables of this scenario's providers, such as ${names[2]}`,
        });
    }
  }
  const d = l.requests.promptTokens;
  if (d.dist === 'uniform' && d.min > d.max)
    push({
      code: 'SCENARIO_INVALID_VALUE',
      path: ['load', 'requests', 'promptTokens'],
      message: `min (${d.min}) is greater than max (${d.max})`,
    });
};

/** The run sections' cross-field rules, checked after the simulator's world rules. */
export const RUN_RULES: ReadonlyArray<Rule<RunScenario>> = [load];
