/** A failed read as a sentence (`ENOENT` → "it does not exist"), for any file plumb reads. */
export function fileErrorSentence(err: unknown): string {
  switch ((err as NodeJS.ErrnoException | undefined)?.code) {
    case 'ENOENT':
      return 'it does not exist';
    case 'EISDIR':
      return 'it is a directory, not a file';
    case 'ENOTDIR':
      return 'a part of its path is a file, not a directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ELOOP':
      return 'it is a loop of symbolic links';
    case 'EMFILE':
    case 'ENFILE':
      return 'too many files are open';
    default:
      return err instanceof Error ? err.message : String(err);
  }
}
