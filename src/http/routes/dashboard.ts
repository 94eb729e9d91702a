/**
 * The dashboard (CONTRACT §3): cookie session, CSRF token per session on every form, Settings →
 * API Keys (create with the secret shown once, list with created / last used / 30-day usage,
 * revoke); administrators see every key, set features and manage the blocklist. Server-rendered
 * HTML; form bodies are accepted only inside this scope (the API stays JSON-only).
 */

import crypto from 'node:crypto';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  type ApiKeyInfo,
  checkKeyChoice,
  isAdmin,
  keyChoicesFor,
  knownFeatures,
  type User,
} from '../../accounts/index.ts';
import { listingAnswer } from '../../blocklist/index.ts';
import { DAY_MS } from '../../core/clock.ts';
import { isAppError } from '../../core/errors.ts';
import { auditPage } from '../../web/audit-page.ts';
import { blocklistPage, keysPage, loginPage, type Viewer } from '../../web/pages.ts';
import type { HttpApp, HttpServices } from '../context.ts';

const COOKIE = 'netrep_session';

type Form = Record<string, string | string[] | undefined>;

/** The fields of a form post (@fastify/formbody): text values and repeated fields; anything else is dropped. */
function formOf(body: unknown): Form {
  const form: Form = {};
  if (typeof body !== 'object' || body === null) return form;
  for (const [name, value] of Object.entries(body)) {
    if (typeof value === 'string') form[name] = value;
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) form[name] = value;
  }
  return form;
}

const KeyIdParam = Type.Object({ id: Type.String({ maxLength: 20 }) });

function field(form: Form, name: string): string {
  const v = form[name];
  return (Array.isArray(v) ? v[0] : v)?.trim() ?? '';
}

function fields(form: Form, name: string): string[] {
  const v = form[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

function sameToken(a: string, b: string): boolean {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return ba.length === bb.length && crypto.timingSafeEqual(ba, bb);
}

export function dashboardRoutes(app: HttpApp, services: HttpServices): void {
  const { accounts } = services;
  const html = (reply: FastifyReply, body: string, status = 200) =>
    reply
      .code(status)
      .header('cache-control', 'no-store')
      .header(
        'content-security-policy',
        "default-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
      )
      .header('x-frame-options', 'DENY')
      .type('text/html; charset=utf-8')
      .send(body);

  const current = async (
    request: FastifyRequest,
  ): Promise<{ user: User; csrf: string; token: string } | null> => {
    const token = request.cookies[COOKIE];
    if (!token) return null;
    const s = await accounts.session(token);
    return s ? { ...s, token } : null;
  };

  /** The signed-in user of a form post whose CSRF token matches, or null. */
  const formUser = async (request: FastifyRequest) => {
    const s = await current(request);
    const form = formOf(request.body);
    if (!s || !sameToken(field(form, '_csrf'), s.csrf)) return null;
    return { ...s, form };
  };

  const viewerOf = (s: { user: User; csrf: string }): Viewer => ({
    email: s.user.email,
    role: s.user.role,
    csrf: s.csrf,
  });

  const renderKeys = async (
    reply: FastifyReply,
    s: { user: User; csrf: string },
    extra: { created?: { key: string; info: ApiKeyInfo }; error?: string } = {},
    status = 200,
  ) => {
    const infos = await accounts.listKeys(isAdmin(s.user) ? {} : { ownerId: s.user.id });
    const keys = await Promise.all(
      infos.map(async (info) => ({ info, usage: await accounts.usage(info.id, 30) })),
    );
    const choices = keyChoicesFor(s.user.role);
    return html(reply, keysPage({ viewer: viewerOf(s), keys, ...choices, ...extra }), status);
  };

  const renderBlocklist = async (
    reply: FastifyReply,
    s: { user: User; csrf: string },
    extra: { error?: string; notice?: string } = {},
    status = 200,
  ) => {
    const listings = [];
    for await (const l of services.blocklist.activeListings()) {
      listings.push({ ip: l.ip, ...listingAnswer(l) });
      if (listings.length >= 200) break;
    }
    return html(reply, blocklistPage({ viewer: viewerOf(s), listings, ...extra }), status);
  };

  const denied = (reply: FastifyReply) => reply.code(303).header('location', '/dashboard/login').send();
  const none = { access: { kind: 'none' as const } };
  const hidden = { hide: true };

  app.register(async (plugin) => {
    // An encapsulated scope is typed afresh: its request parts come from the TypeBox schemas too.
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    await scope.register(cookie);
    await scope.register(formbody, { bodyLimit: 16 * 1024 });

    scope.get('/dashboard', { config: none, schema: hidden }, async (request, reply) =>
      reply
        .code(303)
        .header('location', (await current(request)) ? '/dashboard/keys' : '/dashboard/login')
        .send(),
    );

    scope.get('/dashboard/login', { config: none, schema: hidden }, async (_request, reply) =>
      html(reply, loginPage()),
    );

    scope.post(
      '/dashboard/login',
      { config: { access: { kind: 'public', bucket: 'login' } }, schema: hidden },
      async (request, reply) => {
        const form = formOf(request.body);
        const user = await accounts.verifyLogin(field(form, 'email'), field(form, 'password'));
        if (!user) return html(reply, loginPage('Wrong email or password.'), 401);
        const { token } = await accounts.createSession(user.id);
        reply.setCookie(COOKIE, token, {
          path: '/dashboard',
          httpOnly: true,
          sameSite: 'strict',
          secure: request.protocol === 'https',
          maxAge: Math.floor((12 * 3600 * 1000) / 1000),
        });
        return reply.code(303).header('location', '/dashboard/keys').send();
      },
    );

    scope.post('/dashboard/logout', { config: none, schema: hidden }, async (request, reply) => {
      const s = await formUser(request);
      if (s) await accounts.endSession(s.token);
      reply.clearCookie(COOKIE, { path: '/dashboard' });
      return reply.code(303).header('location', '/dashboard/login').send();
    });

    scope.get('/dashboard/keys', { config: none, schema: hidden }, async (request, reply) => {
      const s = await current(request);
      return s ? renderKeys(reply, s) : denied(reply);
    });

    scope.get('/dashboard/audit', { config: none, schema: hidden }, async (request, reply) => {
      const s = await current(request);
      if (!s) return denied(reply);
      const jobs = await services.audit.list(s.user.id, 50, 0);
      return html(reply, auditPage({ viewer: viewerOf(s), jobs }));
    });

    scope.post('/dashboard/keys', { config: none, schema: hidden }, async (request, reply) => {
      const s = await formUser(request);
      if (!s) return denied(reply);
      const choice = checkKeyChoice(s.user.role, field(s.form, 'tier'), fields(s.form, 'permissions'));
      if (!choice.ok) return renderKeys(reply, s, { error: choice.error }, 400);
      try {
        const created = await accounts.createKey({
          ownerId: s.user.id,
          name: field(s.form, 'name'),
          tier: choice.tier,
          permissions: choice.permissions,
        });
        return renderKeys(reply, s, { created });
      } catch (err) {
        if (isAppError(err)) return renderKeys(reply, s, { error: err.message }, 400);
        throw err;
      }
    });

    const keyRoute = { config: none, schema: { ...hidden, params: KeyIdParam } };
    scope.post('/dashboard/keys/:id/revoke', keyRoute, async (request, reply) => {
      const s = await formUser(request);
      if (!s) return denied(reply);
      if (!(await accounts.revokeKeyAs(s.user, Number(request.params.id)))) {
        return renderKeys(reply, s, { error: 'No such key.' }, 404);
      }
      return reply.code(303).header('location', '/dashboard/keys').send();
    });

    scope.post('/dashboard/keys/:id/features', keyRoute, async (request, reply) => {
      const s = await formUser(request);
      if (!s) return denied(reply);
      if (!isAdmin(s.user)) return renderKeys(reply, s, { error: 'Only administrators set features.' }, 403);
      const id = Number(request.params.id);
      const features = knownFeatures(fields(s.form, 'features'));
      const done = Number.isSafeInteger(id) ? await accounts.setFeatures(id, features) : null;
      if (!done) return renderKeys(reply, s, { error: 'No such key.' }, 404);
      return reply.code(303).header('location', '/dashboard/keys').send();
    });

    scope.get('/dashboard/blocklist', { config: none, schema: hidden }, async (request, reply) => {
      const s = await current(request);
      if (!s) return denied(reply);
      if (!isAdmin(s.user))
        return renderKeys(reply, s, { error: 'Only administrators manage the blocklist.' }, 403);
      return renderBlocklist(reply, s);
    });

    scope.post('/dashboard/blocklist/list', { config: none, schema: hidden }, async (request, reply) => {
      const s = await formUser(request);
      if (!s) return denied(reply);
      if (!isAdmin(s.user))
        return renderKeys(reply, s, { error: 'Only administrators manage the blocklist.' }, 403);
      const days = field(s.form, 'expires_days');
      if (days !== '' && !/^\d{1,4}$/.test(days))
        return renderBlocklist(reply, s, { error: 'Expiry must be a whole number of days.' }, 400);
      try {
        const listing = await services.blocklist.list({
          ip: field(s.form, 'ip'),
          type: field(s.form, 'type') as 'spam',
          reason: field(s.form, 'reason'),
          expiresAt: days === '' ? null : services.clock() + Number(days) * DAY_MS,
          actor: s.user.email,
        });
        return renderBlocklist(reply, s, {
          notice: `Listed ${listing.ip} (${listing.type}, ${listing.returnCode}).`,
        });
      } catch (err) {
        if (isAppError(err)) return renderBlocklist(reply, s, { error: err.message }, 400);
        throw err;
      }
    });

    scope.post('/dashboard/blocklist/delist', { config: none, schema: hidden }, async (request, reply) => {
      const s = await formUser(request);
      if (!s) return denied(reply);
      if (!isAdmin(s.user))
        return renderKeys(reply, s, { error: 'Only administrators manage the blocklist.' }, 403);
      try {
        const gone = await services.blocklist.delist(field(s.form, 'ip'), {
          reason: 'delisted in the dashboard',
          actor: s.user.email,
        });
        return renderBlocklist(
          reply,
          s,
          gone ? { notice: `Delisted ${gone.ip}.` } : { error: 'That address is not listed.' },
        );
      } catch (err) {
        if (isAppError(err)) return renderBlocklist(reply, s, { error: err.message }, 400);
        throw err;
      }
    });
  });
}
