import type { Rule } from '../../simulator/scenario-index.js';
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
    // What node's http client would refuse to send (a folded YAML `>-` block leaves newlines, say).
    if (!HEADER_NAME.test(name))
      push({
        code: 'SCENARIO_INVALID_VALUE',
        path: ['load', 'headers'],
        key: name,
        message: `"${name}" is not a header name that can be sent (letters, digits and !#$%&'*+.^_\`|~- only)`,
      });
    const bad = [...value].find((c) => !isHeaderValueChar(c));
    if (bad !== undefined)
      push({
        code: 'SCENARIO_INVALID_VALUE',
        path: ['load', 'headers', name],
        message: `a header value cannot contain ${describeChar(bad)}${bad === '\n' ? ': write it on one line (a YAML ">-" block keeps the line breaks of blank and more-indented lines)' : ''}`,
      });
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

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A character node's http client sends in a header value: tab, visible ASCII, and Latin-1 above 0x7f. */
function isHeaderValueChar(c: string): boolean {
  const code = c.codePointAt(0)!;
  return code === 9 || (code >= 0x20 && code !== 0x7f && code <= 0xff);
}

function describeChar(c: string): string {
  const code = c.codePointAt(0)!;
  if (c === '\n') return 'a line break';
  if (c === '\r') return 'a carriage return';
  return code > 0xff
    ? `"${c}" (U+${code.toString(16).toUpperCase().padStart(4, '0')}, outside Latin-1)`
    : `the control character 0x${code.toString(16).padStart(2, '0')}`;
}

/** Faults that start after the load ended can match nothing: say so now, not as an inconclusive run. */
const faultTimes: Rule<RunScenario> = (s, _ctx, push) => {
  const l = s.load;
  if (!l) return;
  s.faults.forEach((f, i) => {
    if (f.optional || f.at < l.duration) return;
    push({
      code: 'SCENARIO_OUT_OF_RANGE',
      path: ['faults', i, 'at'],
      message: `fault "${f.id}" starts at ${f.at} ms, when the load (${l.duration} ms) has ended: it can match no attempt (fault times count from the load's start); move it, or mark it "optional: true"`,
    });
  });
};

/** The run sections' cross-field rules, checked after the simulator's world rules. */
export const RUN_RULES: ReadonlyArray<Rule<RunScenario>> = [load, faultTimes];
