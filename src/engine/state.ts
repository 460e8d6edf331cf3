import { closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import type { Stats } from 'node:fs';
import path from 'node:path';
import { checkWritable, errnoText, writeFileAtomic, writeFileAtomicSync } from '../util/write-file.js';
import { PlumbError } from '../diagnostics/error.js';

/**
 * plumb's only state: what each resource kind must remember between runs because the instance cannot
 * tell it (settings: salted fingerprints of write-only values applied; group access tokens: notes
 * about tokens whose secret never arrived and what each sink holds). Everything else is read live
 * from the instance. The store knows no kind: each kind owns a named section per instance, keyed by
 * its own ids, and the shape of its entries (src/resources/<kind>/state.ts). The file holds no
 * secret (see fingerprint.ts) and may be cached between CI runs or committed.
 */
export interface StateFile {
  version: 1;
  /** instance URL → section name → entry key → entry. */
  instances: Record<string, Record<string, Record<string, unknown>>>;
}

export class StateStore {
  #data: StateFile;
  /** The file, or for a store kept in memory (`inMemory`), how messages name where it is kept. */
  readonly file: string;
  /** Kept in memory by its owner (the Terraform provider keeps it in the resource's private state): `save` writes nothing. */
  readonly #memory: boolean;

  private constructor(file: string, data: StateFile, memory = false) {
    this.file = file;
    this.#data = data;
    this.#memory = memory;
  }

  /**
   * A store that is not a file: its owner fills it (`writableSection`) and reads it back
   * (`sections`) itself. `where` is how messages name where it is kept.
   */
  static inMemory(where: string): StateStore {
    return new StateStore(where, { version: 1, instances: {} }, true);
  }

  /** Every section of an instance, as recorded (read only). */
  sections(instanceUrl: string): Readonly<Record<string, Readonly<Record<string, unknown>>>> {
    return this.#data.instances[instanceUrl] ?? {};
  }

  /**
   * Reads the state file. Absent: an empty state. Present but not JSON (cut off mid-write, or not a
   * state file at all) or unreadable: a problem, never an empty state, because starting empty
   * forgets which issued tokens never reached their sink and which secrets were applied.
   */
  static open(file: string): StateStore {
    const r = StateStore.read(file);
    if (r instanceof StateProblem) throw r;
    return r;
  }

  static read(file: string): StateStore | StateProblem {
    let text: string;
    let fd: number;
    try {
      // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer for ever; a
      // regular file is opened as usual. What it is decides before anything is read.
      fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return new StateStore(file, { version: 1, instances: {} });
      if (code === 'EISDIR') return new StateProblem(file, `${file} is a directory`, 'point --state (or PLUMB_STATE) at a file, e.g. .plumb/state.json');
      return new StateProblem(file, `${file} cannot be read (${errnoText(err)})`, 'fix its permissions, or point --state at another file');
    }
    try {
      const kind = fileKind(fstatSync(fd));
      if (kind === 'a directory') return new StateProblem(file, `${file} is a directory`, 'point --state (or PLUMB_STATE) at a file, e.g. .plumb/state.json');
      if (kind !== 'a file') return new StateProblem(file, `${file} is ${kind}, not a regular file`, 'point --state (or PLUMB_STATE) at a regular file, e.g. .plumb/state.json (plumb replaces it by rename, so it cannot be a pipe or a device)');
      text = readFileSync(fd, 'utf8');
    } catch (err) {
      return new StateProblem(file, `${file} cannot be read (${errnoText(err)})`, 'fix its permissions, or point --state at another file');
    } finally {
      closeSync(fd);
    }
    const parsed = parseState(text, file);
    return parsed instanceof StateProblem ? parsed : new StateStore(file, parsed);
  }

  /** A kind's section of an instance's state, or undefined when nothing was recorded yet. Read only. */
  section<T>(instanceUrl: string, name: string): Readonly<Record<string, T>> | undefined {
    return this.#data.instances[instanceUrl]?.[name] as Readonly<Record<string, T>> | undefined;
  }

  /** A kind's section of an instance's state for writing, created when absent; `save` or `markDirty` after. */
  writableSection<T>(instanceUrl: string, name: string): Record<string, T> {
    const inst = (this.#data.instances[instanceUrl] ??= {});
    return (inst[name] ??= {}) as Record<string, T>;
  }

  /** Records that are not worth a write of their own (which token a sink holds) wait for `flush`. */
  #dirty = false;

  markDirty(): void {
    this.#dirty = true;
  }

  /** The next group write, shared by every caller until it starts. */
  #soon: Promise<void> | undefined;
  /** The group write in flight (at most one). */
  #writing: Promise<void> | undefined;
  /** Counts the writes started; an asynchronous write renames only if none started after it. */
  #generation = 0;

  /**
   * Saves once for every caller until the write happens (a group commit): the write-ahead notes of
   * many changes in progress at once cost one write, not one each. The write is asynchronous (the
   * fsync does not hold up the requests of other changes) and one at a time: callers that come
   * while one is in flight share the next. Resolves when the file holds what the callers recorded
   * (by this write, or by a synchronous `save` that started after it, which then drops it); rejects
   * when it could not be written.
   */
  saveSoon(): Promise<void> {
    this.#dirty = true;
    this.#soon ??= (async () => {
      await this.#writing?.catch(() => {});
      await new Promise<void>((r) => setImmediate(r));
      this.#soon = undefined;
      const write = this.#saveAsync();
      this.#writing = write;
      try {
        await write;
      } finally {
        if (this.#writing === write) this.#writing = undefined;
      }
    })();
    return this.#soon;
  }

  async #saveAsync(): Promise<void> {
    this.#dirty = false;
    if (this.#memory) return;
    const generation = ++this.#generation;
    mkdirSync(path.dirname(this.file), { recursive: true });
    await writeFileAtomic(this.file, JSON.stringify(this.#data, null, 2) + '\n', { mode: 0o600, beforeRename: () => this.#generation === generation });
  }

  /** Writes the file if anything changed since the last write. */
  flush(): void {
    if (this.#dirty) this.save();
  }

  /** Atomic write (random temp name created exclusively, fsync, rename: src/util/write-file.ts), mode 0600. */
  save(): void {
    this.#dirty = false;
    if (this.#memory) return;
    this.#generation++;
    mkdirSync(path.dirname(this.file), { recursive: true });
    writeFileAtomicSync(this.file, JSON.stringify(this.#data, null, 2) + '\n', { mode: 0o600 });
  }
}

/** What a file system entry is, for messages. */
function fileKind(st: Stats): string {
  if (st.isFile()) return 'a file';
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a file';
}

/**
 * A state's text, checked: plumb's own state (`version` 1, `instances`), or a problem naming
 * `where`. Anything else is refused rather than read as empty: a Terraform (or OpenTofu) state, or
 * another tool's JSON, at the same address would otherwise be replaced by plumb's on the next apply,
 * and an empty state forgets which issued tokens never reached their sink and which secrets were
 * applied. `where`: the file, or the state backend's address.
 */
export function parseState(text: string, where: string): StateFile | StateProblem {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return new StateProblem(
      where,
      `${where} is not JSON (${text.length === 0 ? 'it is empty' : 'it may have been cut off mid-write'})`,
      'restore it from Git, your CI cache or a backup; or, if nothing can be restored, delete it knowing what is lost: ' +
        'notes about issued tokens whose secret never reached its sink, and which write-only settings were applied (they are sent again)',
    );
  }
  const o = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  if (o && o.version === 1 && typeof o.instances === 'object' && o.instances !== null && !Array.isArray(o.instances)) return o as unknown as StateFile;
  const notOurs = 'plumb does not read or replace it: point --state (or PLUMB_STATE) at plumb\'s own state (a new name starts empty), e.g. .plumb/state.json or …/terraform/state/plumb';
  if (o && (typeof o.terraform_version === 'string' || (typeof o.lineage === 'string' && typeof o.serial === 'number'))) {
    return new StateProblem(where, `${where} holds a Terraform (or OpenTofu) state${typeof o.terraform_version === 'string' ? ` written by Terraform ${o.terraform_version}` : ''}, not plumb's state`, notOurs);
  }
  if (o && typeof o.version === 'number' && o.version > 1 && typeof o.instances === 'object') {
    return new StateProblem(where, `${where} is a plumb state of format ${o.version}, written by a newer plumb`, 'run the plumb version that wrote it (or a newer one)');
  }
  return new StateProblem(where, `${where} is JSON but not a plumb state (no "version": 1 with "instances")`, notOurs);
}

/** The state file cannot be used; `summary` names it, `suggestion` says what to do. */
export class StateProblem extends PlumbError {
  declare readonly code: 'PLUMB_STATE_UNUSABLE';
  declare readonly suggestion: string;
  constructor(
    readonly file: string,
    summary: string,
    suggestion: string,
  ) {
    super('PLUMB_STATE_UNUSABLE', summary, { suggestion });
  }
}

/**
 * Whether apply can use the state file: readable as above, and writable (its directory is created
 * if needed and accepts a new file). Checked before the first write to an instance, so a state that
 * cannot record a newly issued token stops apply before the token is issued.
 */
export function checkStateFile(file: string): StateProblem | undefined {
  const r = StateStore.read(file);
  if (r instanceof StateProblem) return r;
  const w = checkWritable(file, { createDirectory: true });
  if (w) return new StateProblem(file, `The state file ${file} cannot be written: ${w.why}`, `${w.fix}; or point --state (or PLUMB_STATE) elsewhere`);
  return undefined;
}
