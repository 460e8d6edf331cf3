/** A counting semaphore: at most `limit` holders at a time, waiters served in arrival order. */
export class Semaphore {
  readonly #limit: number;
  #active = 0;
  readonly #waiters: (() => void)[] = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`concurrency must be an integer >= 1, got ${limit}`);
    this.#limit = limit;
  }

  async acquire(): Promise<() => void> {
    if (this.#active < this.#limit) {
      this.#active++;
    } else {
      // The releasing holder hands its slot over directly, so #active stays unchanged.
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiters.shift();
      if (next) next();
      else this.#active--;
    };
  }
}
