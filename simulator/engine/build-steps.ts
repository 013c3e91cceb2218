import type { Step } from './reply.js';

/** Accumulates steps, merging writes that follow each other with no wait between them. */
export class StepBuilder {
  readonly steps: Step[] = [];
  private pending = '';
  private pendingTokens = 0;

  head(): this {
    this.flush();
    this.steps.push({ op: 'head' });
    return this;
  }

  write(data: string, tokens = 0): this {
    this.pending += data;
    this.pendingTokens += tokens;
    return this;
  }

  wait(ms: number): this {
    if (ms > 0) {
      this.flush();
      this.steps.push({ op: 'wait', ms });
    }
    return this;
  }

  end(): Step[] {
    this.flush();
    this.steps.push({ op: 'end' });
    return this.steps;
  }

  finish(last: 'reset' | 'hang'): Step[] {
    this.flush();
    this.steps.push({ op: last });
    return this.steps;
  }

  private flush(): void {
    if (this.pending !== '' || this.pendingTokens > 0) {
      this.steps.push(
        this.pendingTokens > 0
          ? { op: 'write', data: this.pending, tokens: this.pendingTokens }
          : { op: 'write', data: this.pending },
      );
      this.pending = '';
      this.pendingTokens = 0;
    }
  }
}
