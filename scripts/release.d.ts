// Types of scripts/release.js, for test/install/release.test.ts.
/** The registry's node-linux-<arch>@<version> binary, unpacked into `dir`; its path. */
export function registryNode(arch: string, version: string, dir: string): string;
/** plumb-linux-<arch> for each arch (default x64 and arm64) into `out`, and out/SHA256SUMS; their paths. */
export function buildExecutables(out: string, opts?: { arches?: string[]; version?: string }): Promise<string[]>;
/** The provider mirror in `out` from the plumb-linux-* executables in `from`, and out/h1-hashes.txt. */
export function buildMirror(from: string, out: string): void;
