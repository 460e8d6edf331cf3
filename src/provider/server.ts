/**
 * `plumb provider`: Terraform's plugin protocol 6 over gRPC, as HashiCorp's go-plugin expects it.
 *
 * Start-up: check the magic cookie (a person running the binary by hand gets a sentence, not a
 * hang), listen on loopback, and print the handshake line `1|6|tcp|127.0.0.1:PORT|grpc|CERT` on
 * stdout. When Terraform passes its client certificate (PLUGIN_CLIENT_CERT), the server makes a
 * fresh self-signed certificate (cert.ts), requires and verifies Terraform's, and puts its own in
 * the handshake's last field (DER, base64 without padding). Beside the provider it serves
 * go-plugin's controller (Shutdown), its stdio stream and the health check.
 *
 * The process ends when Terraform calls Shutdown, on SIGTERM, or when its parent goes away. SIGINT
 * is ignored: Terraform forwards Ctrl-C to the whole process group and then asks the provider to
 * stop itself (StopProvider), so an in-flight apply can finish its current write.
 *
 * This module and its dependencies (@grpc/grpc-js, @grpc/proto-loader, @msgpack/msgpack) load only
 * when `plumb provider` runs; `plumb validate` must never pay for them.
 */
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ownPath } from '../util/own-files.js';
import { urlPolicy, urlRefusal } from '../engine/connection.js';
import type { DiagnosticCode } from '../diagnostics/codes.js';
import { makeServerCertificate } from './cert.js';
import { CtyError, containsUnknown, decodeDynamic, encodeValue } from './cty.js';
import type { CtyType, CtyValue } from './cty.js';
import { blockType, toProtoSchema } from './tfjson.js';
import type { TfJsonSchema } from './tfjson.js';
import { SCHEMA_VERSION, providerSchema } from './schema.js';
import { builtInKinds } from '../resources/index.js';
import type { KindSet } from '../resources/index.js';
import { buildConfig } from './config.js';
import type { PathStep, ProviderSettings, TfObject } from './config.js';
import { GroupListings, Owners, applyResource, configDiagnostics, importResource, planResource, readResource, validateResource } from './resources.js';
import { readDataSource, validateDataSource } from './data-sources.js';
import type { Runtime, TfDiagnostic } from './resources.js';

export const MAGIC_COOKIE_KEY = 'TF_PLUGIN_MAGIC_COOKIE';
export const MAGIC_COOKIE_VALUE = 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2';
/** go-plugin's own protocol version (the handshake's first field). */
const CORE_PROTOCOL_VERSION = 1;
const APP_PROTOCOL_VERSION = 6;

export interface ProviderIo {
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
  readonly cwd: string;
}

export interface RunningProvider {
  readonly port: number;
  readonly handshake: string;
  /** Resolves when the server has stopped (Shutdown, a signal, or close()). */
  readonly done: Promise<void>;
  close(): Promise<void>;
}

// --- the protocol definition ----------------------------------------------------------------------

type Handler = grpc.UntypedHandleCall;
interface Loaded {
  provider: grpc.ServiceDefinition;
  controller: grpc.ServiceDefinition;
  stdio: grpc.ServiceDefinition;
  health: grpc.ServiceDefinition;
}

function loadProtocol(): Loaded {
  const dir = ownPath('proto', import.meta.url);
  if (!dir) throw new Error('plumb cannot find its proto/ directory (the protocol definition); reinstall plumb-gitops');
  const options: protoLoader.Options = { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true, bytes: Buffer };
  const load = (file: string) => grpc.loadPackageDefinition(protoLoader.loadSync(path.join(dir, file), options)) as Record<string, unknown>;
  const tf = load('tfplugin6.proto').tfplugin6 as Record<string, { service: grpc.ServiceDefinition }>;
  const plugin = load('go-plugin.proto').plugin as Record<string, { service: grpc.ServiceDefinition }>;
  const health = ((load('health.proto').grpc as Record<string, unknown>).health as Record<string, unknown>).v1 as Record<string, { service: grpc.ServiceDefinition }>;
  return { provider: tf.Provider!.service, controller: plugin.GRPCController!.service, stdio: plugin.GRPCStdio!.service, health: health.Health!.service };
}

// --- messages -------------------------------------------------------------------------------------

interface DynamicValueMsg {
  msgpack?: Buffer | null;
  json?: Buffer | null;
}

function protoDiagnostic(d: TfDiagnostic) {
  return {
    severity: d.severity === 'error' ? 'ERROR' : 'WARNING',
    summary: d.summary,
    detail: d.detail,
    ...(d.path && d.path.length > 0 && { attribute: { steps: d.path.map(protoStep) } }),
  };
}

function protoStep(s: PathStep) {
  if ('attribute' in s) return { attribute_name: s.attribute };
  if ('key' in s) return { element_key_string: s.key };
  return { element_key_int: s.index };
}

const dynamic = (v: CtyValue, type: CtyType): DynamicValueMsg => ({ msgpack: Buffer.from(encodeValue(v, type)) });

function internalError(err: unknown): TfDiagnostic {
  if (err instanceof CtyError) return { severity: 'error', summary: 'plumb could not read a value Terraform sent', detail: err.message };
  return { severity: 'error', summary: 'plumb failed unexpectedly', detail: err instanceof Error ? err.message : String(err) };
}

// --- the provider service ------------------------------------------------------------------------

function resourceSchema(typeName: string, kinds: KindSet): TfJsonSchema | undefined {
  return providerSchema(kinds).resource_schemas[typeName];
}

function typeOfResource(typeName: string, kinds: KindSet): CtyType | undefined {
  const s = resourceSchema(typeName, kinds);
  return s ? blockType(s.block) : undefined;
}

function providerSettings(config: TfObject, env: NodeJS.ProcessEnv): ProviderSettings {
  const s = (k: string) => (typeof config[k] === 'string' ? (config[k] as string) : undefined);
  return {
    url: s('url') ?? '',
    tokenEnv: s('token_env') ?? 'PLUMB_TOKEN',
    ...(s('token') !== undefined && { token: s('token') }),
    ...(s('ca_bundle') !== undefined && { caBundle: s('ca_bundle') }),
    ...(typeof config.allow_insecure_http === 'boolean' && { allowInsecureHttp: config.allow_insecure_http }),
    ...(Array.isArray(config.allow_risky) && { allowRisky: (config.allow_risky as CtyValue[]).filter((x): x is string => typeof x === 'string') }),
    ...(typeof config.settings_verify_seconds === 'number' && { settingsVerifySeconds: config.settings_verify_seconds }),
    stateFile: s('state_file') ?? env.PLUMB_STATE ?? path.join('.plumb', 'state.json'),
  };
}

/**
 * A Terraform without write-only attributes (before 1.11) would keep these values in its plan and
 * state; plumb refuses them there rather than let a secret reach the state.
 */
function writeOnlyRefused(typeName: string, config: TfObject | null, kinds: KindSet): TfDiagnostic[] {
  const s = resourceSchema(typeName, kinds);
  if (!s || !config) return [];
  return Object.entries(s.block.attributes ?? {})
    .filter(([name, a]) => a.write_only && config[name] !== null && config[name] !== undefined)
    .map(([name]) => ({
      severity: 'error' as const,
      summary: `${name} is a write-only attribute, which this Terraform does not support`,
      detail: `Write-only attributes need Terraform 1.11 or newer (or an OpenTofu that supports them); older versions would store the secret in the state. Upgrade, or leave the setting to plumb\'s YAML. (${'PLUMB_TF_WRITE_ONLY_UNSUPPORTED' satisfies DiagnosticCode})`,
      path: [{ attribute: name }],
    }));
}

/** Removes write-only values from a state Terraform wrote before it knew about them. */
function stripWriteOnly(typeName: string, v: CtyValue, kinds: KindSet): CtyValue {
  const s = resourceSchema(typeName, kinds);
  if (!s || v === null || typeof v !== 'object' || Array.isArray(v)) return v;
  const out: Record<string, CtyValue> = { ...(v as TfObject) };
  for (const [name, a] of Object.entries(s.block.attributes ?? {})) if (a.write_only) out[name] = null;
  return out;
}

function providerService(rt: { current: Runtime; configure(p: ProviderSettings): void; stop(): void; exclusive<T>(fn: () => Promise<T>): Promise<T> }) {
  const kinds = rt.current.kinds;
  const schema = providerSchema(kinds);
  const providerType = blockType(schema.provider.block);
  const unary =
    <Req, Res>(name: string, fn: (req: Req) => Promise<Res> | Res, onError: (d: TfDiagnostic) => Res) =>
    (call: grpc.ServerUnaryCall<Req, Res>, callback: grpc.sendUnaryData<Res>) => {
      Promise.resolve()
        .then(() => fn(call.request))
        .then(
          (res) => callback(null, res),
          (err: unknown) => {
            rt.current.log(`${name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
            callback(null, onError(internalError(err)));
          },
        );
    };
  const diagsOnly = (d: TfDiagnostic) => ({ diagnostics: [protoDiagnostic(d)] });
  const unknownDataSource = (typeName: string): TfDiagnostic => ({ severity: 'error', summary: `Unknown data source ${typeName}`, detail: `plumb serves ${Object.keys(schema.data_source_schemas ?? {}).join(', ')}.` });
  const dataSourceType = (typeName: string): CtyType | undefined => {
    const s = schema.data_source_schemas?.[typeName];
    return s ? blockType(s.block) : undefined;
  };
  const unknownType = (typeName: string): TfDiagnostic => ({ severity: 'error', summary: `Unknown resource type ${typeName}`, detail: `plumb serves ${kinds.terraformParts.map((p) => p.typeName).join(', ')}.` });

  const handlers: Record<string, Handler> = {
    GetMetadata: unary('GetMetadata', () => ({
      server_capabilities: { plan_destroy: true, get_provider_schema_optional: false },
      diagnostics: [],
      data_sources: Object.keys(schema.data_source_schemas ?? {}).map((type_name) => ({ type_name })),
      resources: Object.keys(schema.resource_schemas).map((type_name) => ({ type_name })),
    }), diagsOnly),
    GetProviderSchema: unary('GetProviderSchema', () => ({
      provider: toProtoSchema(schema.provider),
      resource_schemas: Object.fromEntries(Object.entries(schema.resource_schemas).map(([n, s]) => [n, toProtoSchema(s)])),
      data_source_schemas: Object.fromEntries(Object.entries(schema.data_source_schemas ?? {}).map(([n, s]) => [n, toProtoSchema(s)])),
      diagnostics: [],
      server_capabilities: { plan_destroy: true, get_provider_schema_optional: false },
    }), diagsOnly),
    GetFunctions: unary('GetFunctions', () => ({ functions: {}, diagnostics: [] }), diagsOnly),
    ValidateProviderConfig: unary('ValidateProviderConfig', (req: { config: DynamicValueMsg }) => {
      const config = decodeDynamic(req.config, providerType) as TfObject;
      const built = buildConfig(providerSettingsForValidation(config, rt.current.env), undefined, { env: rt.current.env, today: rt.current.now.toISOString().slice(0, 10), cwd: rt.current.cwd, kinds });
      return { diagnostics: configDiagnostics(built, 'provider').map(protoDiagnostic) };
    }, diagsOnly),
    ValidateResourceConfig: unary('ValidateResourceConfig', (req: { type_name: string; config: DynamicValueMsg; client_capabilities: { write_only_attributes_allowed: boolean } | null }) => {
      const type = typeOfResource(req.type_name, kinds);
      if (!type) return diagsOnly(unknownType(req.type_name));
      const config = decodeDynamic(req.config, type) as TfObject;
      const diagnostics = validateResource(rt.current, req.type_name, config);
      if (!req.client_capabilities?.write_only_attributes_allowed) diagnostics.push(...writeOnlyRefused(req.type_name, config, kinds));
      return { diagnostics: diagnostics.map(protoDiagnostic) };
    }, diagsOnly),
    ValidateDataResourceConfig: unary('ValidateDataResourceConfig', (req: { type_name: string; config: DynamicValueMsg }) => {
      const type = dataSourceType(req.type_name);
      if (!type) return diagsOnly(unknownDataSource(req.type_name));
      return { diagnostics: validateDataSource(req.type_name, decodeDynamic(req.config, type) as TfObject | null, kinds.terraformParts).map(protoDiagnostic) };
    }, diagsOnly),
    ReadDataSource: unary('ReadDataSource', async (req: { type_name: string; config: DynamicValueMsg }) => {
      const type = dataSourceType(req.type_name);
      if (!type) return diagsOnly(unknownDataSource(req.type_name));
      const r = await readDataSource(rt.current, req.type_name, decodeDynamic(req.config, type) as TfObject | null);
      return { state: dynamic(r.newState, type), diagnostics: r.diagnostics.map(protoDiagnostic) };
    }, diagsOnly),
    UpgradeResourceState: unary('UpgradeResourceState', (req: { type_name: string; version: number; raw_state: { json?: Buffer | null } | null }) => {
      const type = typeOfResource(req.type_name, kinds);
      if (!type) return diagsOnly(unknownType(req.type_name));
      if (req.version > SCHEMA_VERSION) {
        return diagsOnly({ severity: 'error', summary: `The state of ${req.type_name} was written by a newer plumb (schema version ${req.version})`, detail: `This plumb knows schema version ${SCHEMA_VERSION}; upgrade plumb.` });
      }
      const value = req.raw_state?.json && req.raw_state.json.length > 0 ? decodeDynamic({ json: req.raw_state.json }, type) : null;
      return { upgraded_state: dynamic(stripWriteOnly(req.type_name, value, kinds), type), diagnostics: [] };
    }, diagsOnly),
    ConfigureProvider: unary('ConfigureProvider', (req: { config: DynamicValueMsg }) => {
      const config = decodeDynamic(req.config, providerType) as TfObject;
      const pending = Object.entries(config ?? {}).filter(([, v]) => containsUnknown(v)).map(([k]) => k);
      if (pending.length > 0) {
        return {
          diagnostics: pending.map((k) =>
            protoDiagnostic({
              severity: 'error',
              summary: `The provider's ${k} is known only after apply`,
              detail: 'plumb reads the instance while planning, so its provider block must be known then.\nhelp: give it a literal, a variable or a data source, not an attribute of a resource that is not created yet',
              path: [{ attribute: k }],
            }),
          ),
        };
      }
      const settings = providerSettings(config, rt.current.env);
      const built = buildConfig(settings, undefined, { env: rt.current.env, today: rt.current.now.toISOString().slice(0, 10), cwd: rt.current.cwd, kinds });
      const diagnostics = configDiagnostics(built, 'provider');
      // The provider block is configuration too (a merge request edits .tf files): its url must be
      // allowed from the environment (PLUMB_ALLOWED_URLS, PLUMB_URL, …), as for plan and apply.
      const refusal = settings.url === '' ? undefined : urlRefusal(settings.url, 'provider', urlPolicy(rt.current.env));
      if (refusal) {
        diagnostics.push({ severity: 'error', summary: refusal.summary, detail: `${refusal.detail}\nhelp: ${refusal.suggestion} (PLUMB_URL_NOT_ALLOWED)`, path: [{ attribute: 'url' }] });
      }
      diagnostics.push(...tokenDiagnostics(config));
      if (settings.token === undefined && !rt.current.env[settings.tokenEnv]) {
        diagnostics.push({
          severity: 'error',
          summary: `Environment variable ${settings.tokenEnv} (the instance's access token) is not set`,
          detail: `help: export ${settings.tokenEnv} with an administrator's access token before running Terraform; the token itself never goes in the configuration. (PLUMB_TOKEN_ENV_MISSING)`,
          path: [{ attribute: 'token_env' }],
        });
      }
      if (!diagnostics.some((d) => d.severity === 'error')) rt.configure(settings);
      return { diagnostics: diagnostics.map(protoDiagnostic) };
    }, diagsOnly),
    ReadResource: unary('ReadResource', async (req: { type_name: string; current_state: DynamicValueMsg; private: Buffer }) => {
      const type = typeOfResource(req.type_name, kinds);
      if (!type) return diagsOnly(unknownType(req.type_name));
      const current = decodeDynamic(req.current_state, type) as TfObject | null;
      const r = await readResource(rt.current, req.type_name, current, req.private);
      return { new_state: dynamic(r.newState, type), diagnostics: r.diagnostics.map(protoDiagnostic), private: r.private ?? req.private };
    }, diagsOnly),
    PlanResourceChange: unary('PlanResourceChange', async (req: { type_name: string; prior_state: DynamicValueMsg; proposed_new_state: DynamicValueMsg; config: DynamicValueMsg; prior_private: Buffer }) => {
      const type = typeOfResource(req.type_name, kinds);
      if (!type) return diagsOnly(unknownType(req.type_name));
      const prior = decodeDynamic(req.prior_state, type) as TfObject | null;
      const proposed = decodeDynamic(req.proposed_new_state, type) as TfObject | null;
      const config = decodeDynamic(req.config, type) as TfObject | null;
      const r = await planResource(rt.current, req.type_name, prior, proposed, config, req.prior_private);
      return {
        planned_state: dynamic(r.planned, type),
        requires_replace: r.requiresReplace.map((p) => ({ steps: p.map(protoStep) })),
        planned_private: r.private ?? req.prior_private,
        diagnostics: r.diagnostics.map(protoDiagnostic),
      };
    }, diagsOnly),
    ApplyResourceChange: unary('ApplyResourceChange', async (req: { type_name: string; prior_state: DynamicValueMsg; planned_state: DynamicValueMsg; config: DynamicValueMsg; planned_private: Buffer }) => {
      const type = typeOfResource(req.type_name, kinds);
      if (!type) return diagsOnly(unknownType(req.type_name));
      const prior = decodeDynamic(req.prior_state, type) as TfObject | null;
      const planned = decodeDynamic(req.planned_state, type) as TfObject | null;
      const config = decodeDynamic(req.config, type) as TfObject | null;
      const r = await rt.exclusive(() => applyResource(rt.current, req.type_name, prior, planned, config, req.planned_private));
      return { new_state: dynamic(r.newState, type), private: r.private ?? Buffer.alloc(0), diagnostics: r.diagnostics.map(protoDiagnostic) };
    }, diagsOnly),
    ImportResourceState: unary('ImportResourceState', async (req: { type_name: string; id: string }) => {
      const type = typeOfResource(req.type_name, kinds);
      if (!type) return diagsOnly(unknownType(req.type_name));
      const r = await importResource(rt.current, req.type_name, req.id);
      return {
        imported_resources: r.newState === null ? [] : [{ type_name: req.type_name, state: dynamic(r.newState, type), private: r.private ?? Buffer.alloc(0) }],
        diagnostics: r.diagnostics.map(protoDiagnostic),
      };
    }, diagsOnly),
    StopProvider: unary('StopProvider', () => {
      rt.stop();
      return { Error: '' };
    }, () => ({ Error: 'stop failed' })),
  };
  return handlers;
}

/**
 * The provider's `token` attribute: used instead of `token_env` (default PLUMB_TOKEN); the two
 * together are ambiguous, so refused. The value is never repeated.
 */
function tokenDiagnostics(config: TfObject | null): TfDiagnostic[] {
  const token = config?.token;
  if (token === undefined || token === null) return [];
  if (typeof token === 'string' && token === '') {
    return [{ severity: 'error', summary: 'The provider\'s token is empty', detail: `help: give the instance's access token (from an ephemeral variable or resource), or remove token and use token_env (${'PLUMB_SECRET_TOO_SHORT' satisfies DiagnosticCode})`, path: [{ attribute: 'token' }] }];
  }
  if (typeof config?.token_env === 'string') {
    return [{ severity: 'error', summary: 'The provider has both token and token_env', detail: `plumb would not know which credential to use.\nhelp: keep one: token (the value, e.g. from an ephemeral variable) or token_env (the name of an environment variable) (${'PLUMB_TF_TOKEN_BOTH' satisfies DiagnosticCode})`, path: [{ attribute: 'token_env' }] }];
  }
  return [];
}

/** While validating, unknown provider values (known only after apply) are left to ConfigureProvider. */
function providerSettingsForValidation(config: TfObject | null, env: NodeJS.ProcessEnv): ProviderSettings {
  const known = Object.fromEntries(Object.entries(config ?? {}).filter(([, v]) => typeof v !== 'symbol')) as TfObject;
  const s = providerSettings(known, env);
  return s.url === '' ? { ...s, url: 'https://unconfigured.invalid' } : s;
}

// --- start-up -------------------------------------------------------------------------------------

/** What a person running the binary by hand reads. */
export const NOT_BY_HAND = `This is plumb's Terraform provider (plugin protocol 6). It is started by Terraform, not by hand.

Install it where \`terraform init\` finds it:

  plumb provider install          # Terraform's implied local mirror (~/.terraform.d/plugins)
  plumb provider mirror DIR       # a filesystem mirror; prints the CLI configuration to use

then \`terraform init\` and \`terraform plan\` in a directory whose configuration has a provider "plumb" block. See docs/terraform.md.
`;

export interface ServeOptions {
  /** Current time (PLUMB_NOW in tests). */
  readonly now?: Date;
  /**
   * Stop when the process whose pid this is stops being our parent (Terraform went away). Read
   * at start-up, before the handshake: Terraform may be gone as soon as it has read the line.
   */
  readonly parentPid?: number;
  /** The registry whose Terraform resources it serves; default the built-in kinds (a test serves one more, test/fixtures/kinds/). */
  readonly kinds?: KindSet;
}

export async function serveProvider(io: ProviderIo, opts: ServeOptions = {}): Promise<RunningProvider> {
  const proto = loadProtocol();
  const server = new grpc.Server({ 'grpc.max_receive_message_length': 256 * 1024 * 1024, 'grpc.max_send_message_length': 256 * 1024 * 1024 });
  let stopped = false;
  let settings: ProviderSettings | undefined;
  const log = (m: string) => io.stderr(`plumb: ${m}\n`);
  const kinds = opts.kinds ?? (await builtInKinds());
  const listings = new GroupListings();
  const owners = new Owners();
  // Who the credential is does not change within a walk: a long-lived entry, never emptied by applies.
  const identity = new GroupListings(60 * 60_000);
  // Applies run one at a time (plans and refreshes run concurrently). Not for plumb's state any
  // more (each resource keeps its own in its private state, private-state.ts), nor for the walk's
  // reads (GroupListings.update chains each write onto the entry, so concurrent updates compose;
  // the identity cache is only read). It stays because the engine orders writes across resources
  // only within one plan, and each ApplyResourceChange applies a plan of one resource:
  // - commits to one branch go one at a time (the repository files' lane per project and branch);
  //   two files of one branch applied at once by Terraform (-parallelism=10) would race for the
  //   branch, and the instance may refuse one of the commits;
  // - a change that ends plumb's own credential (its token revoked or rotated, when allow_risky
  //   accepts it) comes after every other change, never beside requests made with that credential.
  // Cost: token creates of one walk run in sequence too (docs/terraform.md, "Cost").
  let applying: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = applying.then(fn, fn);
    applying = run.catch(() => undefined);
    return run;
  };
  const state = {
    get current(): Runtime {
      return { provider: settings, env: io.env, cwd: io.cwd, now: opts.now ?? new Date(), log, stdout: io.stdout, listings, identity, owners, stopped: () => stopped, kinds };
    },
    configure(p: ProviderSettings) {
      settings = p;
    },
    stop() {
      stopped = true;
    },
    exclusive,
  };
  server.addService(proto.provider, providerService(state));

  let resolveDone!: () => void;
  const done = new Promise<void>((r) => (resolveDone = r));
  const stdioStreams = new Set<grpc.ServerWritableStream<unknown, unknown>>();
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= new Promise<void>((resolve) => {
      for (const s of stdioStreams) s.end();
      server.tryShutdown(() => {
        resolve();
        resolveDone();
      });
      // Calls that never finish must not keep the process alive.
      setTimeout(() => server.forceShutdown(), 2000).unref();
    }));
  server.addService(proto.controller, {
    Shutdown: (_call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      callback(null, {});
      setImmediate(() => void close());
    },
  });
  server.addService(proto.stdio, {
    StreamStdio: (call: grpc.ServerWritableStream<unknown, unknown>) => {
      // plumb writes its logs to stderr, which go-plugin reads directly; the stream stays open
      // (and empty) until shutdown so the client does not log a broken stream.
      stdioStreams.add(call);
      call.on('cancelled', () => stdioStreams.delete(call));
    },
  });
  server.addService(proto.health, {
    Check: (_call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => callback(null, { status: 'SERVING' }),
  });

  const clientCert = io.env.PLUGIN_CLIENT_CERT;
  let credentials = grpc.ServerCredentials.createInsecure();
  let certField = '';
  if (!clientCert && !insecureDebug(io.env)) throw new Error(NO_CLIENT_CERT);
  if (clientCert) {
    const cert = makeServerCertificate();
    credentials = grpc.ServerCredentials.createSsl(Buffer.from(clientCert), [{ private_key: Buffer.from(cert.keyPem), cert_chain: Buffer.from(cert.certPem) }], true);
    certField = cert.handshakeCert;
  }
  const port = await bind(server, credentials, io.env);
  const handshake = `${CORE_PROTOCOL_VERSION}|${APP_PROTOCOL_VERSION}|tcp|127.0.0.1:${port}|grpc|${certField}`;
  io.stdout(handshake + '\n');

  if (opts.parentPid !== undefined && opts.parentPid > 1) {
    const parent = opts.parentPid;
    if (process.ppid !== parent) void close();
    const timer = setInterval(() => {
      if (process.ppid !== parent) void close();
    }, 1000);
    timer.unref();
    void done.then(() => clearInterval(timer));
  }
  return { port, handshake, done, close };
}

function bindOnce(server: grpc.Server, credentials: grpc.ServerCredentials, port: number): Promise<number> {
  return new Promise((resolve, reject) => server.bindAsync(`127.0.0.1:${port}`, credentials, (err, p) => (err ? reject(err) : resolve(p))));
}

/** Binds on loopback, within PLUGIN_MIN_PORT..PLUGIN_MAX_PORT when Terraform gives a range. */
async function bind(server: grpc.Server, credentials: grpc.ServerCredentials, env: NodeJS.ProcessEnv): Promise<number> {
  const min = Number(env.PLUGIN_MIN_PORT);
  const max = Number(env.PLUGIN_MAX_PORT);
  if (!Number.isInteger(min) || !Number.isInteger(max) || min <= 0 || max < min) return bindOnce(server, credentials, 0);
  let last: unknown;
  for (let p = min; p <= max; p++) {
    try {
      return await bindOnce(server, credentials, p);
    } catch (err) {
      last = err;
    }
  }
  throw new Error(`no free port from ${min} to ${max}: ${last instanceof Error ? last.message : String(last)}`);
}

/** Checks the magic cookie and the protocol versions Terraform offers; returns a message when it must not start. */
export function handshakeProblem(env: NodeJS.ProcessEnv): string | undefined {
  if (env[MAGIC_COOKIE_KEY] !== MAGIC_COOKIE_VALUE) return NOT_BY_HAND;
  const offered = env.PLUGIN_PROTOCOL_VERSIONS;
  if (offered && !offered.split(',').map((v) => v.trim()).includes(String(APP_PROTOCOL_VERSION))) {
    return `Terraform offers plugin protocol versions ${offered}; plumb speaks version ${APP_PROTOCOL_VERSION} (Terraform 1.0 or newer, OpenTofu).\n`;
  }
  return undefined;
}

/**
 * Without Terraform's client certificate (AutoMTLS, PLUGIN_CLIENT_CERT) the provider would serve
 * plaintext gRPC on loopback, and any local process could make it plan and apply with the token it
 * holds: refused, unless started explicitly for debugging.
 */
const NO_CLIENT_CERT =
  'plumb provider: Terraform passed no client certificate (PLUGIN_CLIENT_CERT), so the provider would serve plaintext gRPC that any local process could drive with your token.\n' +
  '  help: run it through Terraform or OpenTofu (they pass the certificate), or set PLUMB_PROVIDER_INSECURE_DEBUG=1 to debug it by hand on a machine you alone use (docs/terraform.md)\n';

function insecureDebug(env: NodeJS.ProcessEnv): boolean {
  return env.PLUMB_PROVIDER_INSECURE_DEBUG === '1';
}

/** `plumb provider`: runs until Terraform is done with it. */
export async function runProvider(io: ProviderIo): Promise<number> {
  const parentPid = process.ppid;
  const problem = handshakeProblem(io.env);
  if (problem) {
    io.stderr(problem);
    return 1;
  }
  if (!io.env.PLUGIN_CLIENT_CERT) {
    if (!insecureDebug(io.env)) {
      io.stderr(NO_CLIENT_CERT);
      return 1;
    }
    io.stderr('plumb: warning: PLUMB_PROVIDER_INSECURE_DEBUG=1: serving plaintext gRPC without a client certificate; any local process can drive this provider with its token\n');
  }
  const now = io.env.PLUMB_NOW ? new Date(io.env.PLUMB_NOW) : undefined;
  const running = await serveProvider(io, { ...(now && !Number.isNaN(now.getTime()) && { now }), parentPid });
  const ignoreInterrupt = () => undefined;
  process.on('SIGINT', ignoreInterrupt);
  const onTerm = () => void running.close();
  process.once('SIGTERM', onTerm);
  await running.done;
  process.off('SIGINT', ignoreInterrupt);
  process.off('SIGTERM', onTerm);
  return 0;
}


