/**
 * The view of `plumb comment` (one format: it is run in CI, for people reading the job's log).
 */
import type { Io } from '../output.js';
import { problemView } from './problem.js';
import type { ProblemView } from './problem.js';

export interface CommentView extends ProblemView {
  /** The note was posted (`updated: false`) or an earlier one updated. */
  posted(noteId: number, mergeRequest: string, updated: boolean): void;
}

export function commentView(io: Io): CommentView {
  const problems = problemView(false, io);
  return {
    problem: (d, t) => problems.problem(d, t),
    posted(noteId, mergeRequest, updated) {
      io.stdout(`${updated ? 'Updated' : 'Posted'} the plan comment (note ${noteId}) on merge request !${mergeRequest}.\n`);
    },
  };
}
