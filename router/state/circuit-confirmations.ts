/** Scopes read from Redis in one round trip at most: a flood of forged news costs a few reads, not one each. */
const MAX_SCOPES_PER_READ = 1000;

/**
 * Scopes whose news came from the fleet's channel and still has to be confirmed against Redis:
 * read in batches, one read at a time. Anyone who can PUBLISH writes on the channel, whereas a
 * stored value was written by the compare-and-set script alone, so the stored value decides.
 */
export class CircuitConfirmations {
  private readonly waiting = new Set<string>();
  private running = false;
  /** Bumped by `reset`: the answer to a read sent before is dropped. */
  private epoch = 0;
  /** The number of the next read: news heard now was published before that read's answer was taken. */
  round = 0;

  constructor(
    /** The stored values of `scopes`, in order ('' for none). */
    private readonly read: (scopes: string[]) => Promise<string[]>,
    /** What Redis held for `scope` when read `round` was answered. */
    private readonly onAnswer: (scope: string, value: string, round: number) => void,
    private readonly onFailure: (error: unknown) => void,
  ) {}

  /** Reads `scope` with the next batch; starts one at once when none is on its way. */
  add(scope: string): void {
    this.waiting.add(scope);
    if (!this.running) void this.run();
  }

  /** Forgets every scope waiting and drops the answer of a read on its way (the link was lost or re-made). */
  reset(): void {
    this.waiting.clear();
    this.running = false;
    this.epoch++;
  }

  private async run(): Promise<void> {
    const epoch = this.epoch;
    this.running = true;
    while (this.waiting.size > 0) {
      const scopes = [...this.waiting].slice(0, MAX_SCOPES_PER_READ);
      for (const scope of scopes) this.waiting.delete(scope);
      const round = this.round++;
      let values: string[];
      try {
        values = await this.read(scopes);
      } catch (error) {
        if (epoch === this.epoch) {
          this.running = false;
          this.onFailure(error);
        }
        return;
      }
      if (epoch !== this.epoch) return;
      scopes.forEach((scope, i) => this.onAnswer(scope, values[i] ?? '', round));
    }
    this.running = false;
  }
}
