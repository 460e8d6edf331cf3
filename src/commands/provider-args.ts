/** `plumb provider`'s command line as data (src/commands/args.ts): serve, mirror DIR or install. */
import { ArgvReader, HELP_OPTION } from './args.js';
import type { Options, Parsed } from './args.js';

export const PROVIDER_USAGE = `Usage: plumb provider
       plumb provider mirror DIR [--executable FILE] [--platform OS_ARCH…]
       plumb provider install [--executable FILE]

Serves Terraform's plugin protocol 6 (Terraform 1.x, OpenTofu): plumb as a Terraform provider, on
the same engine as plan and apply. Terraform starts it (as terraform-provider-plumb) and talks to it
over gRPC on loopback, with mutual TLS; run by hand it explains how to use it and exits 1.

mirror DIR lays the provider out as a Terraform filesystem mirror in DIR and prints the CLI
configuration that uses it; install does the same into Terraform's implied local mirror
(~/.terraform.d/plugins), which a plain \`terraform init\` reads. See docs/terraform.md.

  --executable FILE     put this standalone executable (npm run build:sea) in the mirror,
                        instead of the provider file of this installation and its launcher
  --platform OS_ARCH    the Terraform platform to write it for (repeatable; default this
                        machine's, e.g. linux_amd64); an executable must be built for it
  -h, --help            this help

Exit codes of mirror and install: 0 written; 1 not written (the directory is a file or not
writable, --executable is not a standalone executable for the platform, …), said on stderr.
`;

export const PROVIDER_OPTIONS = { ...HELP_OPTION, executable: { type: 'string' }, platform: { type: 'string', multiple: true } } as const satisfies Options;

export type ProviderArgs =
  | { readonly help: boolean; readonly action: 'serve' }
  | {
      readonly help: boolean;
      readonly action: 'mirror';
      readonly install: boolean;
      readonly dir?: string;
      readonly executable?: string;
      readonly platforms?: readonly string[];
    };

export function parseProviderArgs(argv: readonly string[]): Parsed<ProviderArgs> {
  const a = new ArgvReader('provider', argv, PROVIDER_OPTIONS);
  const [action, dir, ...more] = a.positionals;
  const help = a.flag('help');
  const executable = a.str('executable');
  const platforms = a.list('platform');
  if (action === 'mirror' || action === 'install') {
    const install = action === 'install';
    if ((install && dir !== undefined) || (!install && (dir === undefined || more.length > 0))) {
      a.problem(install ? '`plumb provider install` takes no directory' : '`plumb provider mirror` needs one directory', 'run `plumb provider --help` for usage');
    }
    return a.result({ help, action: 'mirror', install, ...(!install && dir !== undefined && { dir }), ...(executable !== undefined && { executable }), ...(platforms.length > 0 && { platforms }) });
  }
  if (action !== undefined || executable !== undefined || platforms.length > 0) {
    a.problem(`Unknown provider command "${action ?? (executable !== undefined ? '--executable' : '--platform')}"`, 'plumb provider (started by Terraform), plumb provider mirror DIR, or plumb provider install');
  }
  return a.result({ help, action: 'serve' });
}
