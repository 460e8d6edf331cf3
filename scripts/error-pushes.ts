/**
 * Part of `npm run generate`: in the precompiled validator, every place that records an error —
 * ajv writes `const err7 = {instancePath: …, schemaPath: …, keyword: …, params: …};` and then
 * `if (vErrors === null) {vErrors = [err7];} else {vErrors.push(err7);} errors++;` — becomes one
 * call of a helper the module defines, `vErrors = __plumbError(vErrors, instancePath, schemaPath,
 * keyword, params); errors++;`, which builds the same object (same keys, same order).
 *
 * Why: ~520 such places, each with its own object and array literal, were a fifth of the
 * validator's compiled code, read and deserialized by every cold `plumb validate` (V8's code cache
 * holds a description of every literal; issue 30).
 *
 * A place that does not have exactly that shape is left as ajv wrote it; test/schema/compact.test.ts
 * holds the result to the schema as written.
 */

import { endOfJson } from './prune-schema-constants.js';

const HELPER =
  'function __plumbError(vErrors, instancePath, schemaPath, keyword, params) {const err = {instancePath, schemaPath, keyword, params};if (vErrors === null) return [err];vErrors.push(err);return vErrors;}\n' +
  'function __plumbPush(vErrors, err) {if (vErrors === null) return [err];vErrors.push(err);return vErrors;}\n';

const PUSH = /const (err\d+) = (\{.*?\});if\(vErrors === null\)\{vErrors = \[\1\];\}else \{vErrors\.push\(\1\);\}errors\+\+;/g;
const FIELDS = /^\{instancePath:(.+?),schemaPath:("(?:[^"\\]|\\.)*"),keyword:("(?:[^"\\]|\\.)*"),params:(.*)\}$/;

/** Whether `text` is one object literal: its first `{` closes at its last character. */
function oneObject(text: string): boolean {
  if (!text.startsWith('{')) return false;
  try {
    return endOfJson(text, 0) === text.length;
  } catch {
    return false; // not closed within it
  }
}

export function compactErrorPushes(code: string): string {
  let n = 0;
  const out = code.replace(PUSH, (_m, _name: string, literal: string) => {
    n++;
    const f = FIELDS.exec(literal);
    // Exactly the four fields: an error with another one (propertyNames' propertyName) keeps its literal.
    if (f && oneObject(f[4]!)) return `vErrors = __plumbError(vErrors, ${f[1]}, ${f[2]}, ${f[3]}, ${f[4]});errors++;`;
    return `vErrors = __plumbPush(vErrors, ${literal});errors++;`;
  });
  return n === 0 ? code : `${HELPER}${out}`;
}
