/**
 * A tiny in-memory Git object model: blobs, trees and commits hashed exactly as Git hashes them
 * (SHA-1 over `<type> <size>\0<payload>`), branches and tags, first-parent history, the last commit
 * that touched a path, and line blame. Enough to make `blob_id`, `commit_id` and `last_commit_id`
 * behave like the real service's.
 */
import { createHash } from 'node:crypto';

export type FileMode = '100644' | '100755';

export interface BlobEntry {
  readonly sha: string;
  readonly data: Buffer;
  readonly mode: FileMode;
}

export interface Person {
  readonly name: string;
  readonly email: string;
}

export interface Commit {
  readonly id: string;
  readonly treeId: string;
  readonly parentIds: readonly string[];
  readonly author: Person;
  readonly committer: Person;
  readonly authoredDate: Date;
  readonly committedDate: Date;
  readonly message: string;
  /** Full snapshot of the tree: path -> blob. */
  readonly files: ReadonlyMap<string, BlobEntry>;
}

function sha1(data: Buffer | string): string {
  return createHash('sha1').update(data).digest('hex');
}

export function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Git's object id: SHA-1 of `<type> <byte length>\0<payload>`. */
export function gitObjectId(type: 'blob' | 'tree' | 'commit', payload: Buffer): string {
  return sha1(Buffer.concat([Buffer.from(`${type} ${payload.length}\0`), payload]));
}

export function blobId(data: Buffer): string {
  return gitObjectId('blob', data);
}

export function makeBlob(data: Buffer, executable = false): BlobEntry {
  return { sha: blobId(data), data, mode: executable ? '100755' : '100644' };
}

interface TreeNode {
  files: Map<string, BlobEntry>;
  dirs: Map<string, TreeNode>;
}

/** Hashes a flat path -> blob map as nested Git trees; returns the root tree id. */
export function treeId(files: ReadonlyMap<string, BlobEntry>): string {
  const root: TreeNode = { files: new Map(), dirs: new Map() };
  for (const [path, blob] of files) {
    const parts = path.split('/');
    let node = root;
    for (const dir of parts.slice(0, -1)) {
      let next = node.dirs.get(dir);
      if (!next) {
        next = { files: new Map(), dirs: new Map() };
        node.dirs.set(dir, next);
      }
      node = next;
    }
    node.files.set(parts[parts.length - 1]!, blob);
  }
  const hashNode = (node: TreeNode): string => {
    const entries: { sortKey: string; bytes: Buffer }[] = [];
    for (const [name, blob] of node.files) {
      entries.push({
        sortKey: name,
        bytes: Buffer.concat([Buffer.from(`${blob.mode} ${name}\0`), Buffer.from(blob.sha, 'hex')]),
      });
    }
    for (const [name, child] of node.dirs) {
      entries.push({
        sortKey: `${name}/`,
        bytes: Buffer.concat([Buffer.from(`40000 ${name}\0`), Buffer.from(hashNode(child), 'hex')]),
      });
    }
    entries.sort((a, b) => Buffer.compare(Buffer.from(a.sortKey), Buffer.from(b.sortKey)));
    return gitObjectId('tree', Buffer.concat(entries.map((e) => e.bytes)));
  };
  return hashNode(root);
}

function gitTime(d: Date): string {
  return `${Math.floor(d.getTime() / 1000)} +0000`;
}

export function commitId(c: Omit<Commit, 'id' | 'files'>): string {
  const lines = [`tree ${c.treeId}`];
  for (const p of c.parentIds) lines.push(`parent ${p}`);
  lines.push(`author ${c.author.name} <${c.author.email}> ${gitTime(c.authoredDate)}`);
  lines.push(`committer ${c.committer.name} <${c.committer.email}> ${gitTime(c.committedDate)}`);
  const message = c.message.endsWith('\n') ? c.message : `${c.message}\n`;
  return gitObjectId('commit', Buffer.from(`${lines.join('\n')}\n\n${message}`));
}

export interface CommitRequest {
  /** Branch that receives the commit (created when missing). */
  readonly branch: string;
  /** Commit to build on; undefined for a root commit. */
  readonly parent?: Commit;
  /** Further parents (a merge commit's merged head). */
  readonly otherParents?: readonly Commit[];
  /** path -> new blob, or null to delete. */
  readonly changes: ReadonlyMap<string, BlobEntry | null>;
  readonly author: Person;
  readonly committer: Person;
  readonly message: string;
  readonly date: Date;
}

export interface BlameRange {
  readonly commit: Commit;
  readonly lines: string[];
}

/** Splits file content into lines the way blame shows them (no phantom last line). */
export function splitLines(data: Buffer): string[] {
  const text = data.toString('utf8');
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * For each line of `b`, the index of the matching line of `a` (or -1): common prefix and suffix,
 * then an LCS over the middle when it is small enough (otherwise the middle counts as new).
 */
export function matchLines(a: readonly string[], b: readonly string[]): number[] {
  const result = new Array<number>(b.length).fill(-1);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) {
    result[start] = start;
    start++;
  }
  let endA = a.length - 1;
  let endB = b.length - 1;
  while (endA >= start && endB >= start && a[endA] === b[endB]) {
    result[endB] = endA;
    endA--;
    endB--;
  }
  const n = endA - start + 1;
  const m = endB - start + 1;
  if (n <= 0 || m <= 0 || n * m > 4_000_000) return result;
  // LCS table over the middle (lengths of suffix LCS).
  const width = m + 1;
  const table = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * width + j] =
        a[start + i] === b[start + j]
          ? table[(i + 1) * width + j + 1]! + 1
          : Math.max(table[(i + 1) * width + j]!, table[i * width + j + 1]!);
    }
  }
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[start + i] === b[start + j]) {
      result[start + j] = start + i;
      i++;
      j++;
    } else if (table[(i + 1) * width + j]! >= table[i * width + j + 1]!) {
      i++;
    } else {
      j++;
    }
  }
  return result;
}

export class Repository {
  readonly commits = new Map<string, Commit>();
  readonly branches = new Map<string, string>();
  readonly tags = new Map<string, string>();

  /**
   * Resolves a ref as `git rev-parse` does for the real service: a branch, a tag, a fully qualified
   * `refs/heads/<branch>` or `refs/tags/<tag>`, a full commit id, or an unambiguous id prefix of at
   * least 4 hex digits (Git's minimum abbreviation). Branches win over tags and tags over ids.
   */
  resolve(ref: string): Commit | undefined {
    const branch = this.branches.get(ref);
    if (branch) return this.commits.get(branch);
    const tag = this.tags.get(ref);
    if (tag) return this.commits.get(tag);
    if (ref.startsWith('refs/heads/')) {
      const id = this.branches.get(ref.slice('refs/heads/'.length));
      return id === undefined ? undefined : this.commits.get(id);
    }
    if (ref.startsWith('refs/tags/')) {
      const id = this.tags.get(ref.slice('refs/tags/'.length));
      return id === undefined ? undefined : this.commits.get(id);
    }
    if (/^[0-9a-f]{40}$/i.test(ref)) return this.commits.get(ref.toLowerCase());
    if (/^[0-9a-f]{4,39}$/i.test(ref)) {
      const matches = [...this.commits.keys()].filter((id) => id.startsWith(ref.toLowerCase()));
      if (matches.length === 1) return this.commits.get(matches[0]!);
    }
    return undefined;
  }

  branchHead(branch: string): Commit | undefined {
    const id = this.branches.get(branch);
    return id === undefined ? undefined : this.commits.get(id);
  }

  commit(req: CommitRequest): Commit {
    const files = new Map(req.parent?.files ?? []);
    for (const [path, blob] of req.changes) {
      if (blob === null) files.delete(path);
      else files.set(path, blob);
    }
    const base = {
      treeId: treeId(files),
      parentIds: [...(req.parent ? [req.parent.id] : []), ...(req.otherParents ?? []).map((c) => c.id)],
      author: req.author,
      committer: req.committer,
      authoredDate: req.date,
      committedDate: req.date,
      message: req.message,
    };
    const commit: Commit = { ...base, id: commitId(base), files };
    this.commits.set(commit.id, commit);
    this.branches.set(req.branch, commit.id);
    return commit;
  }

  parent(c: Commit): Commit | undefined {
    const p = c.parentIds[0];
    return p === undefined ? undefined : this.commits.get(p);
  }

  /** The last commit (first-parent history from `from`) that changed the blob or mode of `path`. */
  lastCommitFor(from: Commit, path: string): Commit {
    let current = from;
    const entry = from.files.get(path);
    for (;;) {
      const parent = this.parent(current);
      if (!parent) return current;
      const before = parent.files.get(path);
      if (!sameEntry(before, entry)) return current;
      current = parent;
    }
  }

  /** Blame of `path` at `from`: consecutive lines attributed to the same commit grouped together. */
  blame(from: Commit, path: string, range?: { start: number; end: number }): BlameRange[] {
    // Commits where the file changed, newest first, down to the one that introduced it.
    const chain: Commit[] = [];
    let c: Commit | undefined = this.lastCommitFor(from, path);
    while (c && c.files.has(path)) {
      chain.push(c);
      const parent = this.parent(c);
      if (!parent || !parent.files.has(path)) break;
      c = this.lastCommitFor(parent, path);
    }
    let lines: string[] = [];
    let owners: Commit[] = [];
    for (const commit of chain.reverse()) {
      const next = splitLines(commit.files.get(path)!.data);
      const match = matchLines(lines, next);
      owners = next.map((_, i) => (match[i]! >= 0 ? owners[match[i]!]! : commit));
      lines = next;
    }
    let first = 0;
    let last = lines.length - 1;
    if (range) {
      first = range.start - 1;
      last = Math.min(range.end - 1, lines.length - 1);
    }
    const out: { commit: Commit; lines: string[] }[] = [];
    for (let i = first; i <= last; i++) {
      const owner = owners[i]!;
      const prev = out[out.length - 1];
      if (prev && prev.commit === owner) prev.lines.push(lines[i]!);
      else out.push({ commit: owner, lines: [lines[i]!] });
    }
    return out;
  }
}

export function sameEntry(a: BlobEntry | undefined, b: BlobEntry | undefined): boolean {
  if (!a || !b) return a === b;
  return a.sha === b.sha && a.mode === b.mode;
}

/** The Git LFS pointer text for `content`, and its object id. */
export function lfsPointer(content: Buffer): { pointer: Buffer; oid: string } {
  const oid = sha256Hex(content);
  const pointer = Buffer.from(
    `version https://git-lfs.github.com/spec/v1\noid sha256:${oid}\nsize ${content.length}\n`,
  );
  return { pointer, oid };
}

/** The LFS object id a blob points to, when the blob is an LFS pointer. */
export function parseLfsPointer(data: Buffer): string | undefined {
  if (data.length > 1024) return undefined;
  const m = /^version https:\/\/git-lfs\.github\.com\/spec\/v1\noid sha256:([0-9a-f]{64})\nsize \d+\n?$/.exec(
    data.toString('utf8'),
  );
  return m?.[1];
}
