/**
 * Repository files' part of `plumb export`: each `--file PROJECT:PATH` is read once from the
 * project's default branch (`GET …/files/:path?ref=HEAD`) and written next to the YAML as
 * `files/<project>/<path>`, declared with `source:` so plan compares it byte for byte.
 */
import { getFile } from '../../api/repository-files.js';
import type { ExportEntry, ExportFile, ExportResult, ResourceExporter } from '../../engine/export.js';

/** Where an exported file's bytes go, relative to the output directory. */
export function exportedFilePath(project: string, file: string): string {
  return `files/${project}/${file}`;
}

export const repositoryFilesExporter: ResourceExporter = {
  kind: 'repository_file',
  wanted: (request) => request.files.length > 0,

  async export(ctx): Promise<ExportResult> {
    const read = await Promise.all(
      ctx.request.files.map(async (f) => {
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
    return { entries, files };
  },
};
