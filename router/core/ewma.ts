/** An exponentially weighted moving average that forgets with a half-life in samples. */
export class Ewma {
  private value: number | undefined;
  private readonly alpha: number;

  constructor(halfLifeSamples = 10) {
    this.alpha = 1 - 2 ** (-1 / halfLifeSamples);
  }

  add(sample: number): void {
    this.value = this.value === undefined ? sample : this.value + this.alpha * (sample - this.value);
  }

  /** The average, or `fallback` before any sample. */
  get(fallback: number): number {
    return this.value ?? fallback;
  }

  get known(): boolean {
    return this.value !== undefined;
  }
}
