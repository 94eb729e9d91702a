/**
 * Authentication, permissions, features and limits, driven by `config.access` on each route
 * (spec §5, §8; CONTRACT §3). Runs before the body is read, so a request without a valid key
 * costs no parsing. The client IP is the socket address unless the socket peer is inside
 * NETREP_TRUSTED_PROXIES (Fastify's trustProxy walks X-Forwarded-For from the right).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Accounts, Principal } from '../../accounts/index.ts';
import { AppError } from '../../core/errors.ts';
import { type ParsedIp, parseIp, rateLimitSubject } from '../../core/ip.ts';
import type { LimitState, Limits } from '../../limits/index.ts';
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

const NO_ACCESS: Access = { kind: 'none' };

/** The route's access rule (`config.access`): none when the route declares none. */
function accessOf(request: FastifyRequest): Access {
  return request.routeOptions.config?.access ?? NO_ACCESS;
}

/** The client's address, parsed; request.clientIp is its normalized text (the socket's text when it does not parse). */
function readClient(request: FastifyRequest): ParsedIp | null {
  const client = parseIp(request.ip);
  request.clientIp = client?.address ?? request.ip;
  return client;
}

type KeyAccess = Extract<Access, { kind: 'key' }>;

/** The 401 of a keyed route asked without an X-API-Key header. */
function missingKey(access: KeyAccess): AppError {
  const code = access.missingKeyCode ?? 'UNAUTHORIZED';
  return new AppError(
    code,
    code === 'AUTH_REQUIRED'
      ? 'authentication required: send an X-API-Key header'
      : 'unauthorized: missing X-API-Key header',
  );
}

/** The 403 of a valid key that lacks the route's permission or feature, else null. */
function refusal(principal: Principal, access: KeyAccess): AppError | null {
  if (!keyMay(principal, access.permission)) {
    return new AppError('FORBIDDEN', `this key lacks the ${access.permission} permission`);
  }
  if (access.feature && !principal.features.has(access.feature)) {
    return new AppError(
      'FORBIDDEN',
      `this key lacks the ${access.feature} feature (enabled by an administrator)`,
    );
  }
  return null;
}

export function registerAccess(app: FastifyInstance, services: HttpServices): void {
  const { accounts, limits } = services;
  app.addHook('onRequest', (request) => checkAccess(request, accounts, limits));
}

/** The onRequest hook: the route's access rule applied, the charge recorded in request.limitState. */
async function checkAccess(request: FastifyRequest, accounts: Accounts, limits: Limits): Promise<void> {
  const client = readClient(request);
  const access = accessOf(request);
  if (access.kind === 'none') return;
  if (access.kind === 'public') {
    // An IPv6 client is counted by its /64 (docs/api.md "Limits").
    const subject = client ? rateLimitSubject(client) : request.ip;
    request.limitState = await limits.consumeMinute(access.bucket, subject);
    return;
  }
  const presented = presentedKey(request);
  if (presented === undefined) throw missingKey(access);
  const principal = presented ? await accounts.authenticate(presented) : null;
  if (!principal) throw new AppError('UNAUTHORIZED', 'unauthorized: the API key is invalid or revoked');
  request.principal = principal;
  const refused = refusal(principal, access);
  if (refused !== null) throw refused;
  const daily = await chargeKey(accounts, limits, principal);
  request.limitState = daily;
  if (access.minuteBucket) {
    request.limitState = tighter(
      daily,
      await limits.consumeMinute(access.minuteBucket, `key:${principal.keyId}`),
    );
  }
}
