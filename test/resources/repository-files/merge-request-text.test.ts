/**
 * What plumb writes into a merge request (docs/security.md#merge-requests-plumb-opens): paths and
 * the job URL are data, never markup; the admin's description is kept as written.
 */
import { describe, expect, it } from 'vitest';
import { codeSpan, deliveryCommitMessage, deliveryDescription, descriptionJobLink } from '../../../src/resources/repository-files/merge-request-text.js';
import { fileDigest, trailerDigests } from '../../../src/resources/repository-files/merge-request.js';
import type { FilePayload } from '../../../src/resources/repository-files/payload.js';

const file = (path: string, op: FilePayload['op'] = 'create'): FilePayload => ({ op, project: 'g/p', branch: 'main', path, pointer: `/x/${path}`, commitMessage: 'm', ...(op !== 'delete' && { sha256: 'a'.repeat(64) }) });

describe('the merge request description', () => {
  it('writes a path as inline code that renders as the path: no HTML, no link, no code-span escape', () => {
    const text = deliveryDescription({ targetBranch: 'main', files: [file('docs/<img src=x onerror=alert(1)>.md'), file('a`b](javascript:alert(1)).md'), file('``x``')] }, {});
    expect(text).not.toContain('<img');
    expect(text).toContain('`docs/&lt;img src=x onerror=alert(1)&gt;.md`');
    expect(text).toContain('``a`b](javascript:alert(1)).md``');
    expect(text).toContain('``` ``x`` ```');
    // No line plumb writes is a quick action, whatever the path.
    expect(deliveryDescription({ targetBranch: 'main', files: [file('/approve')] }, {}).split('\n').filter((l) => l.startsWith('/'))).toEqual([]);
  });

  it('keeps the admin description as written and links the job only when CI_JOB_URL is a plain URL', () => {
    const with_ = deliveryDescription({ targetBranch: 'main', files: [file('CODEOWNERS')], description: 'Please **review**.' }, { CI_JOB_URL: 'https://ci.example.com/g/p/-/jobs/42' });
    expect(with_.startsWith('Please **review**.\n')).toBe(true);
    expect(with_).toContain('The plan: https://ci.example.com/g/p/-/jobs/42');
    expect(descriptionJobLink({ CI_JOB_URL: 'https://x.example.com/a) [click](https://evil' })).toBeUndefined();
    expect(descriptionJobLink({ CI_JOB_URL: 'javascript:alert(1)' })).toBeUndefined();
    expect(deliveryDescription({ targetBranch: 'main', files: [file('A')] }, { CI_JOB_URL: '<script>' })).not.toContain('<script>');
    expect(codeSpan('plain')).toBe('`plain`');
  });
});

describe("plumb's commit on the merge request's branch", () => {
  it('lists the files and carries one digest per file the next plan reads back; none for content from a secret', () => {
    const secret: FilePayload = { ...file('token.txt'), sha256: undefined as never, contentFingerprint: { salt: 's', hash: 'h' } };
    delete (secret as { sha256?: string }).sha256;
    const msg = deliveryCommitMessage('prod', { targetBranch: 'main', files: [file('CODEOWNERS'), file('OLD.md', 'delete'), secret] });
    expect(msg.split('\n')[0]).toBe('plumb: deliver 3 files to main');
    expect(msg).toContain('- delete OLD.md');
    expect(msg).toMatch(/^Plumb-Instance: prod$/m);
    expect(trailerDigests(msg)).toEqual([fileDigest(file('CODEOWNERS')), fileDigest(file('OLD.md', 'delete'))]);
    expect(fileDigest(secret)).toBeNull();
  });
});
