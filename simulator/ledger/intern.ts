/** Maps strings to small integers so that ledger columns store numbers, capped against hostile input. */
export class InternTable {
  private readonly ids = new Map<string, number>();
  private readonly values: string[] = [];

  constructor(private readonly max = 65_000) {}

  id(value: string): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      if (this.values.length >= this.max) return this.id('<other>');
      id = this.values.length;
      this.values.push(value);
      this.ids.set(value, id);
    }
    return id;
  }

  value(id: number): string {
    return this.values[id]!;
  }
}
