/** The Pages payload parser: a saved plan's payload is checked field by field before apply reads it. */
import { describe, expect, it } from 'vitest';
import { PayloadError } from '../../../src/engine/payload.js';
import { parsePagesPayload } from '../../../src/resources/pages/payload.js';

describe('parsePagesPayload', () => {
  it('reads the three payload types', () => {
    expect(parsePagesPayload({ type: 'update', project: 'g/p', set: { pages_https_only: true, pages_primary_domain: '' } })).toEqual({
      type: 'update',
      project: 'g/p',
      set: { pages_https_only: true, pages_primary_domain: '' },
    });
    expect(parsePagesPayload({ type: 'unpublish', project: 'g/p' })).toEqual({ type: 'unpublish', project: 'g/p' });
    expect(parsePagesPayload({ type: 'none', project: '42' })).toEqual({ type: 'none', project: '42' });
  });

  it.each([
    [null, 'the payload is not an object'],
    [{ type: 'publish', project: 'g/p' }, 'payload.type is not one of update, unpublish, none'],
    [{ type: 'unpublish' }, 'payload.project is not a string'],
    [{ type: 'update', project: 'g/p' }, 'payload.set is not an object'],
    [{ type: 'update', project: 'g/p', set: {} }, 'payload.set is empty'],
    [{ type: 'update', project: 'g/p', set: { pages_https_only: 'yes' } }, 'payload.set.pages_https_only is not true or false'],
    [{ type: 'update', project: 'g/p', set: { pages_primary_domain: null } }, 'payload.set.pages_primary_domain is not a string'],
    [{ type: 'update', project: 'g/p', set: { pages_access_level: 'public' } }, 'payload.set.pages_access_level is not a Pages field'],
  ])('refuses %j, naming the field', (raw, message) => {
    expect(() => parsePagesPayload(raw)).toThrow(PayloadError);
    expect(() => parsePagesPayload(raw)).toThrow(message);
  });
});
