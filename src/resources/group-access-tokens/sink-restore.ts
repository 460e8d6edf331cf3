/**
 * Putting sinks back (docs/tokens.md#overlap-window, "When a delivery fails"): during a rotation
 * with an overlap window the predecessor keeps working, so a delivery that fails must leave every
 * sink holding what it held before, not a successor's secret that apply is about to revoke.
 *
 * Before a sink is overwritten, what it holds is taken (`takePrior`): a file's bytes and mode, a
 * CI/CD variable's value and fields (one GET), or "absent". A sink whose content cannot be taken (a
 * hidden variable: the service never returns its value; a command or standard output; a read that
 * failed) is unrestorable, and the overlap delivery writes it last (./apply.ts `#deliver`).
 * `restorePrior` writes the old content back (a variable: PUT of its value and fields, or DELETE
 * when plumb created it; a file: atomic replace, or removal when it did not exist) and confirms it
 * by reading it back.
 *
 * Invariants:
 * - The old content lives in memory only, for the length of one change: never in the state, a log,
 *   an error message or a file other than the sink itself. A taken variable value is registered
 *   with the session's redaction (`ctx.secrets`) so no error can echo it.
 */
import { lstat, readFile, unlink } from 'node:fs/promises';
import { ApiError } from '../../api/errors.js';
import type { ApiClient } from '../../api/client.js';
import { createVariable, deleteVariable, getVariable, updateVariable } from '../../api/variables.js';
import type { CiVariable, CiVariableProps } from '../../api/variables.js';
import type { SecretRegistry } from '../../config/secrets.js';
import { writeFileAtomic } from '../../util/write-file.js';
import type { CiVariableSink, TokenSink } from './model.js';
import { variableOwnerOf } from './variable-address.js';
import { sameSecretValue } from './sink-ci-variable.js';

/** What a sink held before a delivery, or why it cannot be put back. Holds a secret: memory only. */
export type Prior =
  | { readonly kind: 'file'; readonly path: string; readonly content?: Buffer; readonly mode?: number }
  | { readonly kind: 'variable'; readonly sink: CiVariableSink; readonly client: ApiClient; readonly old?: CiVariable }
  | { readonly kind: 'unrestorable'; readonly why: string };

const isNotFound = (err: unknown) => err instanceof ApiError && err.status === 404;

/** Takes what the sink holds now (one GET for a variable, one read for a file). Never throws. */
export async function takePrior(sink: TokenSink, clientFor: (instance: string | undefined) => ApiClient, secrets: SecretRegistry): Promise<Prior> {
  switch (sink.kind) {
    case 'command':
      return { kind: 'unrestorable', why: 'a command sink cannot be undone' };
    case 'stdout':
      return { kind: 'unrestorable', why: 'what was printed cannot be taken back' };
    case 'file':
      try {
        const st = await lstat(sink.path);
        if (!st.isFile()) return { kind: 'unrestorable', why: 'it is not a regular file' };
        const content = await readFile(sink.path);
        return { kind: 'file', path: sink.path, content, mode: st.mode & 0o7777 };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'file', path: sink.path };
        return { kind: 'unrestorable', why: `its content could not be read (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
      }
    case 'ci_variable': {
      let client: ApiClient;
      try {
        client = clientFor(sink.instance);
      } catch {
        return { kind: 'unrestorable', why: 'its instance is not open in this run' };
      }
      try {
        const old = await getVariable(client, variableOwnerOf(sink), sink.key, sink.environmentScope);
        if (old.hidden === true || old.value === null) return { kind: 'unrestorable', why: 'it is hidden: the service never returns its value' };
        if (old.value.length >= 8) secrets.add(old.value);
        return { kind: 'variable', sink, client, old };
      } catch (err) {
        if (isNotFound(err)) return { kind: 'variable', sink, client };
        return { kind: 'unrestorable', why: 'its current value could not be read' };
      }
    }
  }
}

/** The fields a variable is put back with (everything the service lets an update set). */
function oldProps(v: CiVariable): CiVariableProps {
  return {
    value: v.value ?? '',
    variable_type: v.variable_type,
    protected: v.protected,
    masked: v.masked,
    raw: v.raw,
    environment_scope: v.environment_scope,
    description: v.description ?? '',
  };
}

/**
 * Writes back what the sink held and reads it back. Throws (a message without any value) when it
 * could not, or the read-back shows something else.
 */
export async function restorePrior(prior: Exclude<Prior, { kind: 'unrestorable' }>): Promise<void> {
  if (prior.kind === 'file') {
    if (prior.content === undefined) {
      await unlink(prior.path).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw new Error(`removing it failed (${err.code ?? 'error'})`);
      });
      const still = await lstat(prior.path).then(() => true, () => false);
      if (still) throw new Error('it still exists after its removal');
      return;
    }
    await writeFileAtomic(prior.path, prior.content, { mode: prior.mode ?? 0o600 });
    const back = await readFile(prior.path);
    if (!back.equals(prior.content)) throw new Error('the content read back is not what it held');
    return;
  }
  const { sink, client, old } = prior;
  const owner = variableOwnerOf(sink);
  if (!old) {
    try {
      await deleteVariable(client, owner, sink.key, sink.environmentScope);
    } catch (err) {
      if (!isNotFound(err)) throw new Error(`deleting the variable plumb created failed (${err instanceof ApiError ? err.status ?? 'no answer' : 'error'})`);
    }
    try {
      await getVariable(client, owner, sink.key, sink.environmentScope);
    } catch (err) {
      if (isNotFound(err)) return;
      throw new Error('reading it back after the delete failed');
    }
    throw new Error('it still exists after its delete');
  }
  const props = oldProps(old);
  const written = await updateVariable(client, owner, sink.key, sink.environmentScope, props).catch((err: unknown) => {
    if (!isNotFound(err)) throw new Error(`putting its value back failed (${err instanceof ApiError ? err.status ?? 'no answer' : 'error'})`);
    return undefined;
  });
  // A variable made hidden by the delivery cannot be unhidden by an update (or was deleted meanwhile): made again.
  if (!written || written.hidden === true) {
    if (written) await deleteVariable(client, owner, sink.key, sink.environmentScope);
    await createVariable(client, owner, sink.key, props);
  }
  const back = await getVariable(client, owner, sink.key, sink.environmentScope);
  const same =
    back.value !== null &&
    sameSecretValue(back.value, old.value ?? '') &&
    back.variable_type === old.variable_type &&
    back.protected === old.protected &&
    back.masked === old.masked &&
    back.raw === old.raw &&
    back.hidden !== true;
  if (!same) throw new Error('the variable read back is not what it held');
}
