/**
 * The view of `plumb comment` (one format: it is run in CI, for people reading the job's log).
 */
import type { Io } from '../output.js';
import { problemView } from './problem.js';
import type { ProblemView, Redact } from './problem.js';

export interface CommentView extends ProblemView {
  /** The note was posted (`updated: false`) or an earlier one updated. */
  posted(noteId: number, mergeRequest: string, updated: boolean): void;
}

/** `redact`: masks the tokens the command holds (the comment token and every administrator token named). */
export function commentView(io: Io, redact: Redact): CommentView {
  const problems = problemView(false, io, redact);
  return {
    problem: (d, t) => problems.problem(d, t),
    posted(noteId, mergeRequest, updated) {
      io.stdout(`${updated ? 'Updated' : 'Posted'} the plan comment (note ${noteId}) on merge request !${mergeRequest}.\n`);
    },
  };
}
