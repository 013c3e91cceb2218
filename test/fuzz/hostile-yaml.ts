import fc from 'fast-check';
import { stringify } from 'yaml';

/** The seed every fuzz test starts from; `FUZZ_SEED=n` replays another run. */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20_261_130);

/** Values that break naive code: huge, tiny, negative, non-finite, wrong types, long and odd text. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, -1, 0, 0.5, 1e-320, Number.MAX_SAFE_INTEGER, 4294967296),
  fc.constantFrom('99999d', '9'.repeat(400), '-5s', '1e12', '', ' ', '\u0000', '\u001b[2J', '.inf', '.nan', '~'),
  fc.constantFrom(null, true, false, [], {}, [[[[[]]]]]),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 40, unit: 'binary' }),
  fc.array(fc.integer(), { maxLength: 5 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.integer(), { maxKeys: 4 }),
);

/** Replaces the value at a random path of `base` (a plain tree) with `value`. */
export function mutate(base: unknown, choices: number[], value: unknown): unknown {
  const copy = structuredClone(base);
  let node = copy as Record<string, unknown>;
  for (const c of choices) {
    const keys = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
    if (keys.length === 0) break;
    const key = keys[c % keys.length]!;
    const next = (node as Record<PropertyKey, unknown>)[key];
    if (next === null || typeof next !== 'object' || c % 3 === 0) {
      (node as Record<PropertyKey, unknown>)[key] = value;
      return copy;
    }
    node = next as Record<string, unknown>;
  }
  return copy;
}

/** A billion-laughs style bomb: `levels` anchors, each aliasing the previous `fanOut` times. */
export const aliasBomb = fc
  .record({ levels: fc.integer({ min: 1, max: 12 }), fanOut: fc.integer({ min: 1, max: 12 }) })
  .map(({ levels, fanOut }) => {
    const lines = ['a0: &a0 [lol, lol]'];
    for (let l = 1; l <= levels; l++)
      lines.push(
        `a${l}: &a${l} [${Array(fanOut)
          .fill(`*a${l - 1}`)
          .join(', ')}]`,
      );
    return `version: 1\nname: bomb\n${lines.join('\n')}\n`;
  });

/** Collections nested `depth` deep, in flow or block style. */
export const deepNesting = fc
  .record({ depth: fc.integer({ min: 10, max: 3000 }), flow: fc.boolean() })
  .map(({ depth, flow }) =>
    flow
      ? `version: 1\nname: deep\nproviders: ${'['.repeat(depth)}${']'.repeat(depth)}\n`
      : `version: 1\nname: deep\nproviders:\n${Array.from({ length: depth }, (_, i) => `${' '.repeat(i)}- `).join('\n')}x\n`,
  );

/** Generated hostile YAML documents around a valid `base`: mutated values, bombs, nesting, bytes. */
export function hostileYaml(base: unknown): fc.Arbitrary<string | Uint8Array> {
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(fc.array(fc.nat(), { minLength: 1, maxLength: 6 }), hostileValue)
        .map(([path, v]) => stringify(mutate(base, path, v))),
    },
    { weight: 2, arbitrary: aliasBomb },
    { weight: 2, arbitrary: deepNesting },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 2000 }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 2000, unit: 'grapheme' }) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.nat({ max: 2000 }), fc.string({ maxLength: 20, unit: 'binary' })).map(([at, junk]) => {
        const text = stringify(base);
        const i = at % (text.length + 1);
        return text.slice(0, i) + junk + text.slice(i);
      }),
    },
  );
}
