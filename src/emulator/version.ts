/** `GET /version`: the instance's version, for any signed-in caller (as the real API). */
import { requireCaller, type Caller } from './auth.js';
import { json, type ApiResponse } from './http.js';
import type { EmulatorState } from './state.js';

/** The latest service version the spec names (relation_export_batch_size, since 18.2). */
export const DEFAULT_VERSION = '18.2.0';

/**
 * The real response's shape: `version`, `revision`, `kas` (the agent server: not modelled, so
 * disabled) and `enterprise` (true on the paid tiers).
 */
export function getVersion(state: EmulatorState, caller: Caller | null): ApiResponse {
  requireCaller(caller);
  return json(200, {
    version: state.instance.version,
    revision: 'emulator',
    kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null },
    enterprise: state.tier !== 'free',
  });
}
