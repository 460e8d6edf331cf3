/** What apply needs for one group access token: the plan's payload of this kind. */
import { PayloadError, number, oneOf, optionalBoolean, optionalNumber, optionalString, record, string, stringArray } from '../../engine/payload.js';

/**
 * `none` is the payload of a no-op change (never applied). `overlap` is a rotation with an overlap
 * window: the successor is created and delivered, the predecessor's revocation recorded as due.
 */
export type Op = 'create' | 'rotate' | 'replace' | 'overlap' | 'delete' | 'none';

const OPS: readonly Op[] = ['create', 'rotate', 'replace', 'overlap', 'delete', 'none'];

/** Properties of a token to create. */
export type NewTokenProps = {
  readonly name: string;
  readonly description?: string;
  readonly scopes: readonly string[];
  readonly access_level: number;
  readonly expires_at: string;
};

/** Never a secret: the sink is read again from the configuration. */
export type TokenPayload = {
  readonly group: string;
  readonly name: string;
  readonly op: Op;
  /** The live token acted on (rotate, replace, delete). */
  readonly tokenId?: number;
  /** Rotate through `self` with plumb's own credential. */
  readonly self?: boolean;
  /** Properties of the token to create (create, replace, overlap). */
  readonly create?: NewTokenProps;
  /** overlap: hours from the successor's delivery until the predecessor (`tokenId`) is revoked. */
  readonly overlapHours?: number;
  /** Expiry of the rotated token. */
  readonly expiresAt?: string;
};

export function parseTokenPayload(raw: unknown): TokenPayload {
  const p = record(raw, 'the payload');
  const op = oneOf(p, 'op', OPS, 'payload.op');
  const tokenId = optionalNumber(p, 'tokenId', 'payload.tokenId');
  if (tokenId === undefined && op !== 'create') throw new PayloadError(`payload.tokenId is missing for a ${op}`);
  let create: NewTokenProps | undefined;
  if (p.create !== undefined) {
    const c = record(p.create, 'payload.create');
    const description = optionalString(c, 'description', 'payload.create.description');
    create = {
      name: string(c, 'name', 'payload.create.name'),
      ...(description !== undefined && { description }),
      scopes: stringArray(c, 'scopes', 'payload.create.scopes'),
      access_level: number(c, 'access_level', 'payload.create.access_level'),
      expires_at: string(c, 'expires_at', 'payload.create.expires_at'),
    };
  } else if (op === 'create' || op === 'replace' || op === 'overlap') throw new PayloadError(`payload.create is missing for a ${op}`);
  const overlapHours = optionalNumber(p, 'overlapHours', 'payload.overlapHours');
  if (op === 'overlap' && (overlapHours === undefined || !Number.isInteger(overlapHours) || overlapHours < 1)) throw new PayloadError('payload.overlapHours must be a positive whole number of hours for an overlap');
  const self = optionalBoolean(p, 'self', 'payload.self');
  const expiresAt = optionalString(p, 'expiresAt', 'payload.expiresAt');
  return {
    group: string(p, 'group', 'payload.group'),
    name: string(p, 'name', 'payload.name'),
    op,
    ...(tokenId !== undefined && { tokenId }),
    ...(self !== undefined && { self }),
    ...(create && { create }),
    ...(expiresAt !== undefined && { expiresAt }),
    ...(op === 'overlap' && { overlapHours }),
  };
}
