/** A seeded source of uniform floats in [0, 1). */
export interface Rng {
  next(): number;
}

/** Mixes a 32-bit state (splitmix32); the building block for seeds and streams. */
function mix32(x: number): number {
  x = (x + 0x9e3779b9) | 0;
  let z = x;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

/** Derives a child seed from a seed and a path of integers, so every stream is independent and replayable. */
export function deriveSeed(seed: number, ...path: number[]): number {
  let s = mix32(seed >>> 0);
  for (const part of path) s = mix32(s ^ mix32(part >>> 0) ^ Math.floor(part / 2 ** 32));
  return s;
}

/**
 * sfc32, seeded through splitmix32: small, fast, and good enough for simulation.
 * @see https://pracrand.sourceforge.net/RNG_engines.txt
 */
class Sfc32 implements Rng {
  private a: number;
  private b: number;
  private c: number;
  private d = 1;

  constructor(seed: number) {
    this.a = mix32(seed >>> 0);
    this.b = mix32(this.a);
    this.c = mix32(this.b);
    for (let i = 0; i < 12; i++) this.next32();
  }

  private next32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  next(): number {
    return this.next32() / 4294967296;
  }
}

/** Creates a seeded generator. */
export function createRng(seed: number): Rng {
  return new Sfc32(seed);
}

/** Returns an integer in [min, max] drawn from `rng`. */
export function randomInt(rng: Rng, min: number, max: number): number {
  return min + Math.floor(rng.next() * (max - min + 1));
}

/** Returns a standard normal draw (Box-Muller) from `rng`. */
export function randomNormal(rng: Rng): number {
  const u = 1 - rng.next();
  const v = rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
