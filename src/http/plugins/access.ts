/**
 * Authentication, permissions, features and limits, driven by `config.access` on each route
 * (spec §5, §8; CONTRACT §3). Runs before the body is read, so a request without a valid key
 * costs no parsing. The client IP is the socket address unless the socket peer is inside
 * NETREP_TRUSTED_PROXIES (Fastify's trustProxy walks X-Forwarded-For from the right).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.ts';
import { parseIp, rateLimitSubject } from '../../core/ip.ts';
import type { LimitState } from '../../limits/index.ts';
import type { Access, HttpServices } from '../context.ts';
import { chargeKey, keyMay } from '../key-access.ts';

function tighter(a: LimitState | null, b: LimitState | null): LimitState | null {
  if (!a) return b;
  if (!b) return a;
  return b.remaining < a.remaining ? b : a;
}

function presentedKey(request: FastifyRequest): string | null | undefined {
  const raw = request.headers['x-api-key'];
  if (raw === undefined) return undefined;
  // A repeated header is malformed rather than "try each".
  if (Array.isArray(raw)) return null;
  return raw.trim();
}

export function registerAccess(app: FastifyInstance, services: HttpServices): void {
  const { accounts, limits } = services;

  app.addHook('onRequest', async (request) => {
    const client = parseIp(request.ip);
    request.clientIp = client?.address ?? request.ip;
    const access: Access = request.routeOptions.config?.access ?? { kind: 'none' };
    if (access.kind === 'none') return;
    if (access.kind === 'public') {
      // An IPv6 client is counted by its /64 (docs/api.md "Limits").
      const subject = client ? rateLimitSubject(client) : request.ip;
      request.limitState = await limits.consumeMinute(access.bucket, subject);
      return;
    }
    const presented = presentedKey(request);
    if (presented === undefined) {
      const code = access.missingKeyCode ?? 'UNAUTHORIZED';
      throw new AppError(
        code,
        code === 'AUTH_REQUIRED'
          ? 'authentication required: send an X-API-Key header'
          : 'unauthorized: missing X-API-Key header',
      );
    }
    const principal = presented ? await accounts.authenticate(presented) : null;
    if (!principal) throw new AppError('UNAUTHORIZED', 'unauthorized: the API key is invalid or revoked');
    request.principal = principal;
    if (!keyMay(principal, access.permission)) {
      throw new AppError('FORBIDDEN', `this key lacks the ${access.permission} permission`);
    }
    if (access.feature && !principal.features.has(access.feature)) {
      throw new AppError(
        'FORBIDDEN',
        `this key lacks the ${access.feature} feature (enabled by an administrator)`,
      );
    }
    const daily = await chargeKey(accounts, limits, principal);
    request.limitState = daily;
    if (access.minuteBucket) {
      request.limitState = tighter(
        daily,
        await limits.consumeMinute(access.minuteBucket, `key:${principal.keyId}`),
      );
    }
  });
}
