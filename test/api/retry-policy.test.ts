import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  classifyTransportError,
  decide,
  isSafeToRepeat,
  parseRetryAfter,
} from '../../src/api/retry.js';
import type { Outcome } from '../../src/api/retry.js';

const opts = { baseDelayMs: 100, maxDelayMs: 1_000, maxRetryAfterMs: 5_000, random: () => 0.5 };
const status = (s: number, retryAfterMs?: number): Outcome => ({ kind: 'status', status: s, retryAfterMs });
const transport = (code: string, syscall?: string): Outcome => ({
  kind: 'transport',
  failure: classifyTransportError(Object.assign(new Error(code), { code, syscall })),
});

describe('retry policy', () => {
  it('treats GET, HEAD and requests marked idempotent as safe to repeat, and nothing else', () => {
    expect(isSafeToRepeat('GET', undefined)).toBe(true);
    expect(isSafeToRepeat('HEAD', undefined)).toBe(true);
    expect(isSafeToRepeat('PUT', true)).toBe(true);
    expect(isSafeToRepeat('POST', undefined)).toBe(false);
    expect(isSafeToRepeat('DELETE', false)).toBe(false);
  });

  it('uses full jitter under a doubling ceiling that stops at maxDelayMs', () => {
    expect(backoffDelay(1, { ...opts, random: () => 0.999 })).toBe(99);
    expect(backoffDelay(3, { ...opts, random: () => 0.5 })).toBe(200);
    expect(backoffDelay(10, { ...opts, random: () => 0.5 })).toBe(500);
    expect(backoffDelay(2, { ...opts, random: () => 0 })).toBe(0);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:07 GMT', now)).toBe(7_000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('retries a 429 for any method, waiting Retry-After capped at maxRetryAfterMs', () => {
    expect(decide(status(429, 2_000), { ...opts, safe: false, attempt: 1, maxAttempts: 4 })).toEqual({
      action: 'retry',
      delayMs: 2_000,
      reason: 'status 429',
    });
    expect(decide(status(429, 600_000), { ...opts, safe: true, attempt: 1, maxAttempts: 4 })).toMatchObject({
      delayMs: 5_000,
    });
  });

  it('waits the Retry-After of a 503 when the server sends one, and backs off otherwise', () => {
    expect(decide(status(503, 3_000), { ...opts, safe: true, attempt: 2, maxAttempts: 4 })).toMatchObject({ delayMs: 3_000 });
    expect(decide(status(503), { ...opts, safe: true, attempt: 2, maxAttempts: 4 })).toMatchObject({ delayMs: 100 });
  });

  it('retries 502, 503 and 504 only for safe requests and calls them ambiguous otherwise', () => {
    for (const s of [502, 503, 504]) {
      expect(decide(status(s), { ...opts, safe: true, attempt: 1, maxAttempts: 4 }).action).toBe('retry');
      expect(decide(status(s), { ...opts, safe: false, attempt: 1, maxAttempts: 4 })).toEqual({
        action: 'ambiguous',
        reason: 'gateway-status',
      });
    }
    expect(decide(status(500), { ...opts, safe: true, attempt: 1, maxAttempts: 4 }).action).toBe('fail');
  });

  it('retries a refused connection for every method because nothing was sent', () => {
    expect(decide(transport('ECONNREFUSED', 'connect'), { ...opts, safe: false, attempt: 1, maxAttempts: 4 }).action).toBe(
      'retry',
    );
    expect(decide(transport('UND_ERR_CONNECT_TIMEOUT'), { ...opts, safe: false, attempt: 1, maxAttempts: 4 }).action).toBe(
      'retry',
    );
  });

  it('never repeats an unsafe request whose connection was lost or timed out after sending', () => {
    expect(decide(transport('UND_ERR_SOCKET'), { ...opts, safe: false, attempt: 1, maxAttempts: 4 })).toEqual({
      action: 'ambiguous',
      reason: 'connection-lost',
    });
    expect(decide(transport('UND_ERR_HEADERS_TIMEOUT'), { ...opts, safe: false, attempt: 1, maxAttempts: 4 })).toEqual({
      action: 'ambiguous',
      reason: 'timeout',
    });
    expect(decide(transport('ECONNRESET'), { ...opts, safe: true, attempt: 1, maxAttempts: 4 }).action).toBe('retry');
  });

  it('classifies the per-attempt deadline as a timeout', () => {
    const deadline = classifyTransportError(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    expect(deadline).toMatchObject({ kind: 'timeout', timedOut: true });
    expect(decide({ kind: 'transport', failure: deadline }, { ...opts, safe: false, attempt: 1, maxAttempts: 4 })).toEqual({
      action: 'ambiguous',
      reason: 'timeout',
    });
  });

  it('does not retry TLS verification failures or an unknown host', () => {
    expect(decide(transport('DEPTH_ZERO_SELF_SIGNED_CERT'), { ...opts, safe: true, attempt: 1, maxAttempts: 4 }).action).toBe(
      'fail',
    );
    expect(decide(transport('ENOTFOUND', 'getaddrinfo'), { ...opts, safe: true, attempt: 1, maxAttempts: 4 }).action).toBe(
      'fail',
    );
  });

  it('gives up on the last attempt', () => {
    expect(decide(status(503), { ...opts, safe: true, attempt: 4, maxAttempts: 4 }).action).toBe('fail');
    expect(decide(status(429, 1), { ...opts, safe: false, attempt: 4, maxAttempts: 4 }).action).toBe('fail');
  });
});
