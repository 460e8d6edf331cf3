/**
 * Drives plumb's provider exactly as Terraform does: starts the built `bin/terraform-provider-plumb`
 * with go-plugin's environment (magic cookie, protocol versions, the client certificate), reads the
 * handshake line, and talks gRPC over mutual TLS to the address it printed. Values go over the wire
 * as msgpack, typed from the schema the provider returned (as Terraform types them).
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { X509Certificate } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { makeServerCertificate } from '../../src/provider/cert.js';
import { decodeValue, encodeValue } from '../../src/provider/cty.js';
import type { CtyType, CtyValue } from '../../src/provider/cty.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const PROVIDER_BIN = path.join(root, 'bin/terraform-provider-plumb');
export const MAGIC = { TF_PLUGIN_MAGIC_COOKIE: 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2' };

/** The provider runs from dist/; build once when it is missing. */
export function ensureBuilt(): void {
  if (existsSync(path.join(root, 'dist/provider/server.js')) && existsSync(path.join(root, 'dist/plumb.cjs'))) return;
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, encoding: 'utf8' });
  if (!existsSync(path.join(root, 'dist/provider/server.js'))) throw new Error(`npm run build did not produce dist/ (exit ${build.status}):\n${build.stdout}\n${build.stderr}`);
}

type Rpc = (req: unknown, cb: (err: grpc.ServiceError | null, res: unknown) => void) => void;

function load(file: string): grpc.GrpcObject {
  return grpc.loadPackageDefinition(
    protoLoader.loadSync(path.join(root, 'proto', file), { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true, bytes: Buffer }),
  );
}

export interface Diag {
  severity: string;
  summary: string;
  detail: string;
  attribute: { steps: { attribute_name?: string; element_key_int?: number; element_key_string?: string }[] } | null;
}

export interface ProtoAttr {
  name: string;
  type: Buffer;
  nested_type: { attributes: ProtoAttr[]; nesting: string } | null;
  required: boolean;
  optional: boolean;
  computed: boolean;
  sensitive: boolean;
  write_only: boolean;
  deprecated: boolean;
}
export interface ProtoSchema {
  version: number;
  block: ProtoBlock;
}

export interface ProtoBlock {
  attributes: ProtoAttr[];
  block_types: { type_name: string; nesting: string; max_items: number; block: ProtoBlock }[];
}

/** The value type of a schema, computed from the protocol message as Terraform does. */
export function typeOfSchema(s: ProtoSchema): CtyType {
  const attr = (a: ProtoAttr): CtyType => {
    if (!a.nested_type) return JSON.parse(a.type.toString('utf8')) as CtyType;
    const inner: CtyType = ['object', Object.fromEntries(a.nested_type.attributes.map((x) => [x.name, attr(x)]))];
    return a.nested_type.nesting === 'SINGLE' ? inner : [a.nested_type.nesting.toLowerCase() as 'list', inner];
  };
  // A nested block's value: a list (or set) of objects, or one object for SINGLE and GROUP.
  const block = (b: ProtoBlock): CtyType => [
    'object',
    {
      ...Object.fromEntries(b.attributes.map((a) => [a.name, attr(a)])),
      ...Object.fromEntries(b.block_types.map((t) => [t.type_name, t.nesting === 'SINGLE' || t.nesting === 'GROUP' ? block(t.block) : [t.nesting.toLowerCase() as 'list', block(t.block)]])),
    },
  ];
  return block(s.block);
}

export interface ProviderProcess {
  readonly child: ChildProcess;
  readonly handshake: string;
  readonly serverCert: X509Certificate;
  readonly stderr: () => string;
  readonly stdout: () => string;
  call<T = Record<string, unknown>>(method: string, req?: unknown): Promise<T>;
  controller(method: 'Shutdown'): Promise<unknown>;
  health(): Promise<{ status: string }>;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
  kill(): void;
  /** Client channels made with other credentials (to test that they are refused). */
  connectWith(creds: grpc.ChannelCredentials): (method: string, req?: unknown) => Promise<unknown>;
}

/**
 * Starts the provider as go-plugin does, with automatic mutual TLS. `command` runs another build of
 * it (an installed package's, the standalone executable) instead of this checkout's bin/.
 */
export async function startProvider(opts: { env?: Record<string, string>; cwd?: string; command?: readonly string[] } = {}): Promise<ProviderProcess> {
  if (!opts.command) ensureBuilt();
  const client = makeServerCertificate();
  const [cmd, ...args] = opts.command ?? [process.execPath, PROVIDER_BIN];
  const child = spawn(cmd!, args, {
    cwd: opts.cwd ?? root,
    env: { PATH: process.env.PATH ?? '', ...MAGIC, PLUGIN_PROTOCOL_VERSIONS: '6', PLUGIN_CLIENT_CERT: client.certPem, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  let out = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout! });
  const handshake = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no handshake within 15 s; stderr:\n${err}`)), 15_000);
    lines.once('line', (l) => {
      clearTimeout(t);
      resolve(l);
    });
    child.once('exit', (code) => reject(new Error(`the provider exited (${code}) before its handshake; stderr:\n${err}`)));
  });
  lines.on('line', (l) => (out += l + '\n'));
  const parts = handshake.split('|');
  const der = Buffer.from(parts[5]!, 'base64');
  const serverCert = new X509Certificate(der);
  const creds = grpc.credentials.createSsl(Buffer.from(serverCert.toString()), Buffer.from(client.keyPem), Buffer.from(client.certPem));
  const address = parts[3]!;
  const channelOptions = { 'grpc.ssl_target_name_override': 'localhost', 'grpc.max_receive_message_length': 64 * 1024 * 1024 };
  const tf = (load('tfplugin6.proto').tfplugin6 as grpc.GrpcObject).Provider as grpc.ServiceClientConstructor;
  const plugin = load('go-plugin.proto').plugin as grpc.GrpcObject;
  const healthPkg = ((load('health.proto').grpc as grpc.GrpcObject).health as grpc.GrpcObject).v1 as grpc.GrpcObject;
  const provider = new tf(address, creds, channelOptions);
  const controller = new (plugin.GRPCController as grpc.ServiceClientConstructor)(address, creds, channelOptions);
  const health = new (healthPkg.Health as grpc.ServiceClientConstructor)(address, creds, channelOptions);
  const invoke = (c: grpc.Client, method: string, req: unknown) =>
    new Promise<unknown>((resolve, reject) => ((c as unknown as Record<string, Rpc>)[method]!.bind(c))(req ?? {}, (e, r) => (e ? reject(e) : resolve(r))));
  return {
    child,
    handshake,
    serverCert,
    stderr: () => err,
    stdout: () => out,
    call: (method, req) => invoke(provider, method, req) as Promise<never>,
    controller: (method) => invoke(controller, method, {}),
    health: () => invoke(health, 'Check', { service: 'plugin' }) as Promise<{ status: string }>,
    exited,
    kill: () => {
      provider.close();
      controller.close();
      health.close();
      if (child.exitCode === null) child.kill('SIGKILL');
    },
    connectWith: (other) => {
      const c = new tf(address, other, channelOptions);
      return (method, req) => invoke(c, method, req).finally(() => c.close());
    },
  };
}

export const dv = (v: CtyValue, t: CtyType) => ({ msgpack: Buffer.from(encodeValue(v, t)) });
export const undv = (m: { msgpack: Buffer } | null | undefined, t: CtyType): CtyValue => (m && m.msgpack.length > 0 ? decodeValue(m.msgpack, t) : null);

/** Every attribute of an object type set to null, then the given values: a whole config value. */
export function objectOf(t: CtyType, values: Record<string, CtyValue>): Record<string, CtyValue> {
  const attrs = (t as readonly ['object', Record<string, CtyType>])[1];
  return { ...Object.fromEntries(Object.keys(attrs).map((k) => [k, null])), ...values };
}
