/**
 * Repository files' part of `plumb export`: each `--file PROJECT:PATH` is read once from the
 * project's default branch (`GET …/files/:path?ref=HEAD`) and written next to the YAML as
 * `files/<project>/<path>`, declared with `source:` so plan compares it byte for byte.
 */
import { getFile } from '../../api/repository-files.js';
import type { ExportEntry, ExportFile, ExportResult, ResourceExporter } from '../../engine/export.js';
import { ExportOptionError } from '../../engine/export.js';
import { decodedSegment } from '../../api/path.js';

/** Where export puts repository files' bytes, relative to the output directory. */
const FILES_DIR = 'files';

/** Where an exported file's bytes go, relative to the output directory. */
export function exportedFilePath(project: string, file: string): string {
  return `${FILES_DIR}/${project}/${file}`;
}

type FileSpec = { readonly project: string; readonly path: string };

/** `--file PROJECT:PATH`: a project and a plain path in its repository. */
function parseFileSpec(spec: string): FileSpec {
  const colon = spec.indexOf(':');
  const project = colon < 0 ? '' : spec.slice(0, colon);
  const file = colon < 0 ? '' : spec.slice(colon + 1);
  const bad = (s: string) => s.split('/').some((x) => x === '' || x === '.' || x === '..');
  if (project === '' || file === '' || bad(file) || bad(project)) {
    throw new ExportOptionError(
      `--file takes PROJECT:PATH, a project and a plain path in its repository, not "${spec}"`,
      'for example --file platform/app:CODEOWNERS (plumb export --help lists the options)',
    );
  }
  return { project, path: file };
}

export const repositoryFilesExporter: ResourceExporter<readonly FileSpec[]> = {
  kind: 'repository_file',
  flags: [{ name: 'file', type: 'string', multiple: true, arg: 'PROJECT:PATH', help: "export this repository file from the project's default branch (repeatable)" }],
  parseOptions: (values) => ((values.file as readonly string[] | undefined) ?? []).map(parseFileSpec),
  outputDirs: () => [{ dir: FILES_DIR }],
  notFound(apiPath) {
    const m = /^\/projects\/([^/]+)\/repository\/files\/([^/?]+)/.exec(apiPath);
    if (!m) return undefined;
    const [project, file] = [decodedSegment(m[1]!), decodedSegment(m[2]!)];
    return `file "${file}" of project "${project}" (--file ${project}:${file})`;
  },

  async export(ctx): Promise<ExportResult> {
    const read = await Promise.all(
      ctx.options.map(async (f) => {
        const project = /^\d+$/.test(f.project) ? Number(f.project) : f.project;
        return { ...f, file: await getFile(ctx.client, project, f.path, 'HEAD') };
      }),
    );
    const entries: ExportEntry[] = [];
    const files: ExportFile[] = [];
    for (const { project, path, file } of read) {
      const local = exportedFilePath(project, path);
      files.push({ path: local, content: Buffer.from(file.content, 'base64') });
      entries.push({
        path: ['projects', project, 'files', path],
        value: { source: local, ...(file.execute_filemode ? { execute_filemode: true } : {}) },
        comment: ` from the default branch, ${file.size} bytes`,
      });
    }
    return { entries, files, counts: { repositoryFiles: entries.length }, summary: `${entries.length} file(s)` };
  },
};
