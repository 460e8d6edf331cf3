/**
 * The exporter interface: how a resource kind turns what a live instance holds into configuration
 * (`plumb export`, docs/export.md). Like providers, exporters live in their kind's folder
 * (`src/resources/<kind>/export.ts`) and reach the command through the kinds registry; neither the
 * engine nor the command knows which kinds exist.
 *
 * An exporter returns entries (a key path under the instance, a value, a comment for people),
 * never YAML: the command assembles one document with sorted keys, so the output is the same text
 * for the same instance and a re-export shows a reviewable diff.
 */
import type { ApiClient } from '../api/client.js';
import type { ResourceKindName } from './plan.js';

/** What the command line asked to export; a kind reads only its own part. */
export interface ExportRequest {
  /** `--all-settings`: every setting, not only those that differ from the spec's defaults. */
  readonly allSettings: boolean;
  /** `--group` refs; empty: every group in which the credential has the Owner role. */
  readonly groups: readonly string[];
  /** `--file PROJECT:PATH`. */
  readonly files: readonly { readonly project: string; readonly path: string }[];
  /** `--pages PROJECT`. */
  readonly pages: readonly string[];
  /**
   * `--sink-dir DIR`: token sinks become files in DIR (relative to the output directory).
   * Absent: each token gets a commented-out placeholder and the configuration does not validate
   * (`PLUMB_TOKEN_SINK_MISSING`) until someone chooses where its secret goes.
   */
  readonly sinkDir?: string;
  /**
   * Secret settings an existing configuration (`-c`) declares as a plain `${env:NAME}`, by setting
   * name: exported again, with the same NAME, so the configuration in use and its export agree.
   */
  readonly settingEnv?: ReadonlyMap<string, string>;
}

export interface ExportContext {
  readonly client: ApiClient;
  /** YYYY-MM-DD, for expiry-based inferences (rotation policies). */
  readonly today: string;
  readonly request: ExportRequest;
}

/** One value of the exported configuration, at `path` under `instances.<name>`. */
export interface ExportEntry {
  readonly path: readonly string[];
  readonly value: unknown;
  /** Shown above the key: what it means, its default, why it looks as it does. Never a secret. */
  readonly comment?: string;
}

/** An environment variable the exported configuration reads (`${env:NAME}`): a secret plumb cannot read back. */
export interface ExportEnv {
  readonly name: string;
  /** What it must hold, for the list at the end. */
  readonly why: string;
}

/** A file written next to the YAML (the `source:` of a repository file), relative to the output directory. */
export interface ExportFile {
  readonly path: string;
  readonly content: Buffer;
}

export interface ExportResult {
  readonly entries: readonly ExportEntry[];
  readonly env?: readonly ExportEnv[];
  readonly files?: readonly ExportFile[];
  /** Directories the configuration needs to exist (token sink directories), relative to the output directory. */
  readonly directories?: readonly string[];
  /** Notes for people (stderr), e.g. what could not be exported and why. */
  readonly notes?: readonly string[];
}

/** One resource kind's export. `wanted` says whether the request asks anything of this kind. */
export interface ResourceExporter {
  readonly kind: ResourceKindName;
  wanted(request: ExportRequest): boolean;
  export(ctx: ExportContext): Promise<ExportResult>;
}
