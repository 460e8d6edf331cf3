/** Where a fleet's merge requests stand, as the human plan counts them (docs/plans.md#merge-requests). */
import { describe, expect, it } from 'vitest';
import type { MergeRequestStanding, ResourceChange } from '../../src/engine/plan.js';
import { mergeRequestCount, mergeRequestLines, standingText, waitingText } from '../../src/render/merge-requests.js';

const change = (i: number, state: MergeRequestStanding['state']): ResourceChange => ({
  address: `prod.project["g/app-${i}"].merge_request["plumb/prod"]`,
  instance: 'prod',
  kind: 'repository_file',
  action: state === 'new' ? 'create' : state === 'up-to-date' || state === 'foreign' ? 'no-op' : state === 'close' ? 'delete' : 'update',
  reasons: [],
  attributes: [],
  payload: {},
  liveFingerprint: 'x',
  mergeRequest: { state, sourceBranch: 'plumb/prod', targetBranch: 'main', files: 2, ...(state !== 'new' && { iid: 12, url: `https://code.example.com/g/app-${i}/-/merge_requests/12` }), ...(state === 'update' && { changed: 1 }) },
});

describe('the merge requests of a fleet', () => {
  it('are counted per standing, and listed per standing with the first projects past 20', () => {
    const changes = [...Array.from({ length: 1180 }, (_, i) => change(i, 'new')), ...Array.from({ length: 20 }, (_, i) => change(2000 + i, 'up-to-date'))];
    expect(mergeRequestCount({ changes })).toBe('merge requests: 1,180 to open, 20 up to date');
    expect(mergeRequestLines({ changes })).toEqual(['', 'Merge requests (merge requests: 1,180 to open, 20 up to date):', '  to open: 1,180 (g/app-0, g/app-1, g/app-2, … and 1,177 more)', '  up to date: 20 (g/app-2000, g/app-2001, g/app-2002, … and 17 more)']);
  });

  it('say each standing in words', () => {
    expect(standingText(change(1, 'new').mergeRequest!)).toBe('2 files → new merge request (plumb/prod into main)');
    expect(standingText(change(1, 'up-to-date').mergeRequest!)).toBe('merge request !12 up to date (waiting for review)');
    expect(standingText(change(1, 'update').mergeRequest!)).toBe('merge request !12 will be updated (1 file changed)');
    expect(standingText(change(1, 'foreign').mergeRequest!)).toBe('merge request !12 left untouched (someone else pushed to plumb/prod)');
    expect(waitingText({ changes: [change(1, 'up-to-date'), change(2, 'foreign')] })).toBe("1 open merge request of plumb's waits for review, 1 merge request is left untouched (someone else pushed to its branch)");
  });
});
