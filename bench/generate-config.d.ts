/** Types of generate-config.js, for the tests that import it. */
export function writeLargeConfig(dir: string, resources?: number): { readonly file: string; readonly resources: number };
