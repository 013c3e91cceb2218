/** A numbered change heard on a group's faults channel. */
export interface NumberedChange<T> {
  seq: number;
  change: T;
}

/** What to do after a change or a read of the hash: the changes to apply, in order, and whether to read the hash (again). */
export interface ChangeStep<T> {
  apply: T[];
  read: boolean;
}

/**
 * Puts a group's fault changes in order (the pure core of `connectFaultSync`). Changes are
 * numbered by Redis; each is applied once, in order. While the hash is being read (at the start,
 * after a reconnect, after a gap) changes are held, and those the read already holds are dropped
 * when it lands; a change that skips a number means some were missed, so the hash is read again.
 * No change is lost behind an in-flight read.
 */
export class ChangeOrder<T> {
  private applied = 0;
  private reading = true;
  private held: Array<NumberedChange<T>> = [];

  /** The number of the last change applied (0 before the first read). */
  get seq(): number {
    return this.applied;
  }

  /** A change heard on the channel. */
  heard(numbered: NumberedChange<T>): ChangeStep<T> {
    if (this.reading) {
      this.held.push(numbered);
      return { apply: [], read: false };
    }
    if (numbered.seq <= this.applied) return { apply: [], read: false };
    if (numbered.seq !== this.applied + 1) return this.reread();
    this.applied = numbered.seq;
    return { apply: [numbered.change], read: false };
  }

  /** The hash was read as of change `seq`: the held changes after it follow, in order. */
  read(seq: number): ChangeStep<T> {
    this.reading = false;
    // Not the larger of the two: a Redis restarted empty numbers from 0 again.
    this.applied = seq;
    const held = this.held.sort((a, b) => a.seq - b.seq);
    this.held = [];
    const apply: T[] = [];
    for (const h of held) {
      const step = this.heard(h);
      apply.push(...step.apply);
      if (step.read) return { apply, read: true };
    }
    return { apply, read: false };
  }

  /** Reads the hash again (a reconnect, a gap, a change that could not be read). */
  reread(): ChangeStep<T> {
    const first = !this.reading;
    this.reading = true;
    return { apply: [], read: first };
  }
}
