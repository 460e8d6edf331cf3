// Types of scripts/sea.js, for the tests (and later build steps) that build the standalone executable.
/** plumb's data files the executable embeds, by package path. */
export function embeddedFiles(): string[];
/** `plumb-<platform>-<arch>` (`.exe` on Windows). */
export function defaultName(): string;
/**
 * Builds the standalone executable into `outDir` (default dist/sea) as `name`; resolves with its
 * path. `base`: the node binary to inject into (default this one; same Node.js version).
 */
export function buildSea(opts?: { outDir?: string; name?: string; base?: string; useCodeCache?: boolean }): Promise<string>;
/** One CommonJS script of `entry` and every dependency (the executable's, dist/plumb-provider.cjs). */
export function bundleEverything(opts: { entry: string; outfile: string; moduleUrl: string; banner?: string }): Promise<void>;
