/** What apply needs to write one repository file on one branch: the plan's payload of this kind. */
import type { SecretFingerprint } from '../../engine/fingerprint.js';
import { PayloadError, oneOf, optionalBoolean, optionalString, record, string } from '../../engine/payload.js';

/** `none` is the payload of a no-op change (never applied). */
export type FileOp = 'create' | 'update' | 'delete' | 'none';

const OPS: readonly FileOp[] = ['create', 'update', 'delete', 'none'];

/** Never the content: apply reads it again from the configuration (by `pointer`) and checks `sha256`. */
export type FilePayload = {
  readonly op: FileOp;
  /** The project as the configuration names it (full path or id). */
  readonly project: string;
  readonly branch: string;
  readonly path: string;
  /** The file's declaration in the configuration. */
  readonly pointer: string;
  /** SHA-256 (hex) of the content to write (create, update). */
  readonly sha256?: string;
  /** Instead of `sha256` when the content comes from a secret: a salted scrypt fingerprint of that SHA-256. */
  readonly contentFingerprint?: SecretFingerprint;
  /** The execute bit to send (create, update); absent: leave it as it is. */
  readonly executeFilemode?: boolean;
  /** `X-Service-Last-Commit-Id` at plan time (update, delete): a commit since makes the write fail. */
  readonly lastCommitId?: string;
  /** `branch` lacks the file and is (or will be) created from this branch; the plan read it there. */
  readonly startBranch?: string;
  /** This write is the first to `branch`, and sends `start_branch` to create it. */
  readonly createsBranch?: boolean;
  readonly commitMessage: string;
  /** `delivery: {commit: {skip_ci: true}}`: the commit's message carries the service's `[skip ci]`, so it starts no pipeline. */
  readonly skipCi?: boolean;
  readonly authorName?: string;
  readonly authorEmail?: string;
};

const SHA256 = /^[0-9a-f]{64}$/;

export function parseFilePayload(raw: unknown): FilePayload {
  const p = record(raw, 'the payload');
  const op = oneOf(p, 'op', OPS, 'payload.op');
  const sha256 = optionalString(p, 'sha256', 'payload.sha256');
  let contentFingerprint: SecretFingerprint | undefined;
  if (p.contentFingerprint !== undefined) {
    const fp = record(p.contentFingerprint, 'payload.contentFingerprint');
    contentFingerprint = { salt: string(fp, 'salt', 'payload.contentFingerprint.salt'), hash: string(fp, 'hash', 'payload.contentFingerprint.hash') };
  }
  if (sha256 !== undefined && contentFingerprint !== undefined) throw new PayloadError('payload has both sha256 and contentFingerprint');
  if ((op === 'create' || op === 'update') && contentFingerprint === undefined && (sha256 === undefined || !SHA256.test(sha256))) {
    throw new PayloadError(`payload.sha256 is not a SHA-256 for a ${op}`);
  }
  const lastCommitId = optionalString(p, 'lastCommitId', 'payload.lastCommitId');
  if ((op === 'update' || op === 'delete') && !lastCommitId) throw new PayloadError(`payload.lastCommitId is missing for a ${op}`);
  for (const key of ['project', 'branch', 'path', 'pointer', 'commitMessage']) {
    if (string(p, key, `payload.${key}`) === '') throw new PayloadError(`payload.${key} is empty`);
  }
  const out: FilePayload = {
    op,
    project: p.project as string,
    branch: p.branch as string,
    path: p.path as string,
    pointer: p.pointer as string,
    commitMessage: p.commitMessage as string,
    ...(sha256 !== undefined && { sha256 }),
    ...(contentFingerprint !== undefined && { contentFingerprint }),
    ...(lastCommitId !== undefined && { lastCommitId }),
  };
  const exec = optionalBoolean(p, 'executeFilemode', 'payload.executeFilemode');
  const start = optionalString(p, 'startBranch', 'payload.startBranch');
  const creates = optionalBoolean(p, 'createsBranch', 'payload.createsBranch');
  if (creates && start === undefined) throw new PayloadError('payload.createsBranch is set without payload.startBranch');
  const skipCi = optionalBoolean(p, 'skipCi', 'payload.skipCi');
  const name = optionalString(p, 'authorName', 'payload.authorName');
  const email = optionalString(p, 'authorEmail', 'payload.authorEmail');
  return {
    ...out,
    ...(exec !== undefined && { executeFilemode: exec }),
    ...(start !== undefined && { startBranch: start }),
    ...(creates !== undefined && { createsBranch: creates }),
    ...(skipCi !== undefined && { skipCi }),
    ...(name !== undefined && { authorName: name }),
    ...(email !== undefined && { authorEmail: email }),
  };
}
