/**
 * What a front-end's run remembers: one `RunMemo` per CLI command run, one per Terraform provider
 * walk (a provider process: Terraform starts one for validate, plan and apply each). The engine
 * hands every instance of every session a view of it (`InstanceContext.memo`), and a kind keeps its
 * reads, checks and batches there, never in module-level caches: what a kind remembers then lives
 * exactly as long as the run it belongs to, and two runs in one process (tests, the provider's
 * walks) share nothing by accident.
 *
 * Three lifetimes, because a read may be shared only as far as it stays safe:
 * - `session`: one engine session and one instance (a CLI command's plan and its apply; one RPC of
 *   the provider). The token lists a plan made, the sink directories it checked, a batch of
 *   confirming lists.
 * - `reads`: the run's reads shared across its sessions, which a kind keeps true by recording its
 *   own writes in them (`update`). Only the provider has them: it plans and applies one resource per
 *   RPC, and one group's token list answers every token of the group within a walk. Absent in the
 *   CLI, whose one session plans and applies everything; absent too for a provider plan that must
 *   read the instance anew (`fresh`).
 * - `identity`: facts that hold for the whole run, fresh or not: who plumb's credential is.
 */
/** A cache of reads, keyed by what was read (`group-access-tokens:GROUP`). */
export interface ReadCache {
  get<T>(key: string, load: () => Promise<T>): Promise<T>;
  /**
   * What a write of this front-end made of a cached value: `change` receives the value as cached
   * and returns it as it is now (a created token added, a revoked one marked). Nothing happens
   * when the key is not cached. Absent: the cache holds nothing a write can change.
   */
  update?<T>(key: string, change: (value: T) => T): void;
}

/**
 * Values by key for one lifetime. A promise that rejects is forgotten (a failed read is never
 * shared); `ttlMs` bounds how long an entry answers (default: for the memo's whole life).
 */
export class Memo implements ReadCache {
  readonly #entries = new Map<string, { readonly at: number; readonly value: Promise<unknown> }>();
  readonly #own = new Map<string, unknown>();

  constructor(readonly ttlMs = Number.POSITIVE_INFINITY) {}

  get<T>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.#entries.get(key);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.value as Promise<T>;
    return this.#put(key, Date.now(), load());
  }

  update<T>(key: string, change: (value: T) => T): void {
    const hit = this.#entries.get(key);
    if (!hit || Date.now() - hit.at >= this.ttlMs) return;
    // The entry keeps its age: a write makes what it changed true, not the rest of the read.
    void this.#put(key, hit.at, (hit.value as Promise<T>).then(change));
  }

  /**
   * A value this memo owns, made on the first ask and kept for the memo's life (a kind's map of
   * shared lists, its cache of sink checks): `make` decides its shape, the key its owner
   * (`<kind>:<what>`). `replace` puts a new one in its place (a plan that checks afresh).
   */
  own<T>(key: string, make: () => T): T {
    if (!this.#own.has(key)) this.#own.set(key, make());
    return this.#own.get(key) as T;
  }

  replace<T>(key: string, value: T): T {
    this.#own.set(key, value);
    return value;
  }

  forget(key: string): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
    this.#own.clear();
  }

  #put<T>(key: string, at: number, value: Promise<T>): Promise<T> {
    const entry = { at, value };
    this.#entries.set(key, entry);
    value.catch(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key); // a failed read is never shared
    });
    return value;
  }
}

/** What one instance of one session sees of its run's memo (`InstanceContext.memo`). */
export interface SessionMemo {
  /** This session's, for this instance: made anew by every `openSession`. */
  readonly session: Memo;
  /**
   * Reads the run shares across its sessions (the provider's walk). A kind that reads through it at
   * apply records its own writes in it (`update`), so a later session sees them without reading
   * again, and reads afresh wherever an older read could make a write unsafe (a rotation).
   * Absent for the CLI (one session plans and applies everything) and for a fresh plan.
   */
  readonly reads?: ReadCache & { forget(key: string): void };
  /** Facts that hold for the run, fresh or not: who plumb's credential is (`GET /user`, `GET /personal_access_tokens/self`). */
  readonly identity: ReadCache;
}

/** A run whose sessions share their reads (the provider's walk). */
export type SharingRunMemo = RunMemo & { readonly reads: Memo };

/** One per run of a front-end (a CLI command, a provider walk); see the module comment. */
export class RunMemo {
  readonly reads: Memo | undefined;
  readonly identity: Memo;

  /** `identity`: the run's identity facts (default: new ones, answering for the run's whole life). */
  constructor(reads?: Memo, identity: Memo = new Memo()) {
    this.reads = reads;
    this.identity = identity;
  }

  /** A run whose sessions share their reads; an identity fact answers for `identityTtlMs`. */
  static sharing(identityTtlMs?: number): SharingRunMemo {
    return new RunMemo(new Memo(), new Memo(identityTtlMs)) as SharingRunMemo;
  }

  /** The same run seen by a session that reads the instance anew: no shared reads, the same identity. */
  fresh(): RunMemo {
    return new RunMemo(undefined, this.identity);
  }

  /**
   * The view an instance of a new session gets. The identity facts are keyed by the instance (a CLI run
   * may work on several, each with its own credential); the shared reads belong to the provider,
   * which serves one instance.
   */
  open(instance: string): SessionMemo {
    const identity = this.identity;
    const scoped: ReadCache = { get: (key, load) => identity.get(`${instance}\0${key}`, load) };
    return { session: new Memo(), identity: scoped, ...(this.reads && { reads: this.reads }) };
  }
}
