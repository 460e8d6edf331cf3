// Types of scripts/sea.js, for the tests (and later build steps) that build the standalone executable.
/** plumb's data files the executable embeds, by package path. */
export function embeddedFiles(): string[];
/** `plumb-<platform>-<arch>` (`.exe` on Windows). */
export function defaultName(): string;
/** Builds the standalone executable into `outDir` (default dist/sea) as `name`; resolves with its path. */
export function buildSea(opts?: { outDir?: string; name?: string }): Promise<string>;
