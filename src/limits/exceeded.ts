/** The X-RateLimit-* headers (spec §8) and the RATE_LIMIT_EXCEEDED error that carries them. */
import { AppError } from '../core/errors.ts';
import type { LimitState } from './types.ts';

/** The X-RateLimit-* headers of a limit state (spec §8), for every path that answers. */
export function rateLimitHeaderValues(state: LimitState): Record<string, string> {
  return {
    'x-ratelimit-limit': String(state.limit),
    'x-ratelimit-remaining': String(state.remaining),
    'x-ratelimit-reset': String(state.reset),
  };
}

/** RATE_LIMIT_EXCEEDED with Retry-After (at least 1 s) and the headers of the spent state. */
export function tooMany(state: LimitState, retryAfterSeconds: number): AppError {
  return new AppError('RATE_LIMIT_EXCEEDED', undefined, {
    headers: {
      'retry-after': String(Math.max(1, retryAfterSeconds)),
      ...rateLimitHeaderValues({ ...state, remaining: 0 }),
    },
  });
}
