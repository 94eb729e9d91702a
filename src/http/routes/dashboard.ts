/**
 * The dashboard (CONTRACT §3): cookie session, CSRF token per session on every form, Settings →
 * API Keys (create with the secret shown once, list with created / last used / 30-day usage,
 * revoke); administrators see every key, set features and manage the blocklist. Server-rendered
 * HTML; form bodies are accepted only inside this scope (the API stays JSON-only).
 */

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  type ApiKeyInfo,
  checkKeyChoice,
  isAdmin,
  keyChoicesFor,
  knownFeatures,
  mayManageKey,
  type User,
} from '../../accounts/index.ts';
import { listingAnswer } from '../../blocklist/index.ts';
import { DAY_MS } from '../../core/clock.ts';
import { isAppError } from '../../core/errors.ts';
import {
  blocklistPage,
  keysPage,
  loginPage,
  passwordPage,
  revokeConfirmPage,
  type Viewer,
} from '../../web/pages.ts';
import { usersPage } from '../../web/users-page.ts';
import type { HttpApp, HttpServices } from '../context.ts';
import { type FormName, field, fields, KeyIdParam, keyIdOf, readForm } from '../dashboard-forms.ts';
import {
  dashboardPlugins,
  SESSION_COOKIE,
  sameToken,
  sessionOf,
  toPasswordChange,
  toSignIn,
} from '../dashboard-session.ts';
import { sendHtml } from '../html-reply.ts';

/** What every dashboard page handler uses: the session, the form user, the page renderers. */
function dashboardKit(services: HttpServices) {
  const { accounts } = services;
  const html = sendHtml;

  const current = (request: FastifyRequest) => sessionOf(accounts, request);

  /**
   * The signed-in user of a form post whose CSRF token matches, or null; `wrong` says which
   * field is not text (the caller answers 400 with the page and that message).
   */
  const formUser = async (request: FastifyRequest, name: FormName) => {
    const s = await current(request);
    const { form, wrong } = readForm(request.body, name);
    if (!s || !sameToken(field(form, '_csrf'), s.csrf)) return null;
    return { ...s, form, wrong };
  };

  const viewerOf = (s: { user: User; csrf: string }): Viewer => ({
    email: s.user.email,
    role: s.user.role,
    csrf: s.csrf,
  });

  const renderKeys = async (
    reply: FastifyReply,
    s: { user: User; csrf: string },
    extra: { created?: { key: string; info: ApiKeyInfo }; error?: string; notice?: string } = {},
    status = 200,
  ) => {
    const infos = await accounts.listKeys(isAdmin(s.user) ? {} : { ownerId: s.user.id });
    const keys = await Promise.all(
      infos.map(async (info) => ({ info, usage: await accounts.usage(info.id, 30) })),
    );
    const choices = keyChoicesFor(s.user.role);
    const dataset = services.datasetStatus();
    return html(reply, keysPage({ viewer: viewerOf(s), keys, ...choices, ...extra, dataset }), status);
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

  // Administrators see every user's sign-in state and lift sign-in locks.
  const renderUsers = async (
    reply: FastifyReply,
    s: { user: User; csrf: string },
    extra: { error?: string; notice?: string } = {},
    status = 200,
  ) => html(reply, usersPage({ viewer: viewerOf(s), users: await accounts.listUsers(), ...extra }), status);

  return { current, formUser, viewerOf, renderKeys, renderBlocklist, renderUsers };
}
type Kit = ReturnType<typeof dashboardKit>;

const none = { access: { kind: 'none' as const } };
const hidden = { hide: true };
const denied = toSignIn;
const toPassword = toPasswordChange;
const html = sendHtml;

/** Sign-in, the password change and sign-out. */
function sessionPages(scope: HttpApp, services: HttpServices, kit: Kit): void {
  const { accounts } = services;
  const { current, formUser, viewerOf, renderKeys } = kit;
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
      const { form, wrong } = readForm(request.body, 'login');
      if (wrong) return html(reply, loginPage(wrong), 400);
      const result = await accounts.signIn(field(form, 'email'), field(form, 'password'));
      if ('lockedUntil' in result) {
        // The per-account limit (accounts README): a lock holds whatever address signs in.
        const seconds = Math.max(1, Math.ceil((result.lockedUntil - services.clock()) / 1000));
        const until = new Date(result.lockedUntil).toISOString().slice(11, 16);
        reply.header('retry-after', String(seconds));
        return html(
          reply,
          loginPage(
            `Too many failed sign-ins to this account: it is locked until ${until} UTC. Try again then, or ask an administrator to unlock it.`,
          ),
          429,
        );
      }
      if ('wrong' in result) return html(reply, loginPage('Wrong email or password.'), 401);
      const { user } = result;
      const { token } = await accounts.createSession(user.id);
      reply.setCookie(SESSION_COOKIE, token, {
        path: '/dashboard',
        httpOnly: true,
        sameSite: 'strict',
        secure: request.protocol === 'https',
        maxAge: Math.floor((12 * 3600 * 1000) / 1000),
      });
      return user.mustChangePassword
        ? toPassword(reply)
        : reply.code(303).header('location', '/dashboard/keys').send();
    },
  );

  scope.get('/dashboard/password', { config: none, schema: hidden }, async (request, reply) => {
    const s = await current(request);
    if (!s) return denied(reply);
    return html(reply, passwordPage({ viewer: viewerOf(s), forced: s.user.mustChangePassword }));
  });

  scope.post('/dashboard/password', { config: none, schema: hidden }, async (request, reply) => {
    const s = await formUser(request, 'changePassword');
    if (!s) return denied(reply);
    const again = (error: string, status: number) =>
      html(reply, passwordPage({ viewer: viewerOf(s), forced: s.user.mustChangePassword, error }), status);
    if (s.wrong) return again(s.wrong, 400);
    const next = field(s.form, 'password');
    if (next !== field(s.form, 'confirm')) return again('The two new passwords differ.', 400);
    try {
      await accounts.changePassword(s.user.id, field(s.form, 'current'), next, s.token);
    } catch (err) {
      if (isAppError(err)) return again(err.message, 400);
      throw err;
    }
    return renderKeys(
      reply,
      { ...s, user: { ...s.user, mustChangePassword: false } },
      {
        notice: 'Your password was changed.',
      },
    );
  });

  scope.post('/dashboard/logout', { config: none, schema: hidden }, async (request, reply) => {
    const s = await formUser(request, 'logout');
    if (s) await accounts.endSession(s.token);
    reply.clearCookie(SESSION_COOKIE, { path: '/dashboard' });
    return reply.code(303).header('location', '/dashboard/login').send();
  });
}

/** Settings → API Keys (create, revoke, features). */
function keyPages(scope: HttpApp, services: HttpServices, kit: Kit): void {
  const { accounts } = services;
  const { current, formUser, viewerOf, renderKeys } = kit;
  scope.get('/dashboard/keys', { config: none, schema: hidden }, async (request, reply) => {
    const s = await current(request);
    if (!s) return denied(reply);
    if (s.user.mustChangePassword) return toPassword(reply);
    // After a revoke (303 here with ?revoked=ID): say which key stopped working.
    const revokedId = Number((request.query as { revoked?: unknown }).revoked);
    const revoked = Number.isSafeInteger(revokedId) ? await accounts.keyInfo(revokedId) : null;
    const notice =
      revoked?.revoked_at && mayManageKey(s.user, await accounts.keyOwner(revoked.id))
        ? `Key "${revoked.name}" (${revoked.prefix}…) was revoked; requests with it are refused from now on.`
        : undefined;
    return renderKeys(reply, s, notice ? { notice } : {});
  });

  scope.post('/dashboard/keys', { config: none, schema: hidden }, async (request, reply) => {
    const s = await formUser(request, 'createKey');
    if (!s) return denied(reply);
    if (s.user.mustChangePassword) return toPassword(reply);
    if (s.wrong) return renderKeys(reply, s, { error: s.wrong }, 400);
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
  scope.get('/dashboard/keys/:id/revoke', keyRoute, async (request, reply) => {
    const s = await current(request);
    if (!s) return denied(reply);
    if (s.user.mustChangePassword) return toPassword(reply);
    const id = keyIdOf(request.params.id);
    const key = id === null ? null : await accounts.keyInfo(id);
    if (id === null || !key || key.revoked_at || !mayManageKey(s.user, await accounts.keyOwner(id)))
      return renderKeys(reply, s, { error: 'No such key.' }, 404);
    return html(reply, revokeConfirmPage({ viewer: viewerOf(s), key }));
  });
  scope.post('/dashboard/keys/:id/revoke', keyRoute, async (request, reply) => {
    const s = await formUser(request, 'revokeKey');
    if (!s) return denied(reply);
    if (s.user.mustChangePassword) return toPassword(reply);
    if (s.wrong) return renderKeys(reply, s, { error: s.wrong }, 400);
    const id = keyIdOf(request.params.id);
    if (id === null || !(await accounts.revokeKeyAs(s.user, id))) {
      return renderKeys(reply, s, { error: 'No such key.' }, 404);
    }
    return reply.code(303).header('location', `/dashboard/keys?revoked=${id}`).send();
  });

  scope.post('/dashboard/keys/:id/features', keyRoute, async (request, reply) => {
    const s = await formUser(request, 'setFeatures');
    if (!s) return denied(reply);
    if (s.user.mustChangePassword) return toPassword(reply);
    if (!isAdmin(s.user)) return renderKeys(reply, s, { error: 'Only administrators set features.' }, 403);
    if (s.wrong) return renderKeys(reply, s, { error: s.wrong }, 400);
    const id = keyIdOf(request.params.id);
    const features = knownFeatures(fields(s.form, 'features'));
    const done = id === null ? null : await accounts.setFeatures(id, features);
    if (!done) return renderKeys(reply, s, { error: 'No such key.' }, 404);
    return reply.code(303).header('location', '/dashboard/keys').send();
  });
}

/** The administrators' users page (sign-in locks). */
function adminPages(scope: HttpApp, services: HttpServices, kit: Kit): void {
  const { accounts } = services;
  const { current, formUser, renderKeys, renderUsers } = kit;
  scope.get('/dashboard/users', { config: none, schema: hidden }, async (request, reply) => {
    const s = await current(request);
    if (!s) return denied(reply);
    if (s.user.mustChangePassword) return toPassword(reply);
    if (!isAdmin(s.user)) return renderKeys(reply, s, { error: 'Only administrators manage users.' }, 403);
    return renderUsers(reply, s);
  });

  scope.post('/dashboard/users/unlock', { config: none, schema: hidden }, async (request, reply) => {
    const s = await formUser(request, 'unlock');
    if (!s) return denied(reply);
    if (s.user.mustChangePassword) return toPassword(reply);
    if (!isAdmin(s.user)) return renderKeys(reply, s, { error: 'Only administrators manage users.' }, 403);
    if (s.wrong) return renderUsers(reply, s, { error: s.wrong }, 400);
    const email = field(s.form, 'email');
    return (await accounts.unlockUser(email))
      ? renderUsers(reply, s, { notice: `Unlocked ${email.toLowerCase()}: it may sign in again.` })
      : renderUsers(reply, s, { error: 'No such user.' }, 404);
  });
}

/** The blocklist page and its list and delist forms (administrators only). */
function blocklistPages(scope: HttpApp, services: HttpServices, kit: Kit): void {
  const { formUser, current, renderKeys, renderBlocklist } = kit;

  /** The blocklist page after `change`; a change the blocklist refuses (an AppError) is the page with its message, 400. */
  const changeBlocklist = async (
    reply: FastifyReply,
    s: { user: User; csrf: string },
    change: () => Promise<{ error?: string; notice?: string }>,
  ) => {
    try {
      return await renderBlocklist(reply, s, await change());
    } catch (err) {
      if (isAppError(err)) return renderBlocklist(reply, s, { error: err.message }, 400);
      throw err;
    }
  };

  scope.get('/dashboard/blocklist', { config: none, schema: hidden }, async (request, reply) => {
    const s = await current(request);
    if (!s) return denied(reply);
    if (s.user.mustChangePassword) return toPassword(reply);
    if (!isAdmin(s.user))
      return renderKeys(reply, s, { error: 'Only administrators manage the blocklist.' }, 403);
    return renderBlocklist(reply, s);
  });

  scope.post('/dashboard/blocklist/list', { config: none, schema: hidden }, async (request, reply) => {
    const s = await formUser(request, 'list');
    if (!s) return denied(reply);
    if (s.user.mustChangePassword) return toPassword(reply);
    if (!isAdmin(s.user))
      return renderKeys(reply, s, { error: 'Only administrators manage the blocklist.' }, 403);
    if (s.wrong) return renderBlocklist(reply, s, { error: s.wrong }, 400);
    const days = field(s.form, 'expires_days');
    if (days !== '' && !/^\d{1,4}$/.test(days))
      return renderBlocklist(reply, s, { error: 'Expiry must be a whole number of days.' }, 400);
    return changeBlocklist(reply, s, async () => {
      const listing = await services.blocklist.list({
        ip: field(s.form, 'ip'),
        type: field(s.form, 'type') as 'spam',
        reason: field(s.form, 'reason'),
        expiresAt: days === '' ? null : services.clock() + Number(days) * DAY_MS,
        actor: s.user.email,
      });
      return { notice: `Listed ${listing.ip} (${listing.type}, ${listing.returnCode}).` };
    });
  });

  scope.post('/dashboard/blocklist/delist', { config: none, schema: hidden }, async (request, reply) => {
    const s = await formUser(request, 'delist');
    if (!s) return denied(reply);
    if (s.user.mustChangePassword) return toPassword(reply);
    if (!isAdmin(s.user))
      return renderKeys(reply, s, { error: 'Only administrators manage the blocklist.' }, 403);
    if (s.wrong) return renderBlocklist(reply, s, { error: s.wrong }, 400);
    return changeBlocklist(reply, s, async () => {
      const gone = await services.blocklist.delist(field(s.form, 'ip'), {
        reason: 'delisted in the dashboard',
        actor: s.user.email,
      });
      return gone ? { notice: `Delisted ${gone.ip}.` } : { error: 'That address is not listed.' };
    });
  });
}

export function dashboardRoutes(app: HttpApp, services: HttpServices): void {
  const kit = dashboardKit(services);
  app.register(async (plugin) => {
    // An encapsulated scope is typed afresh: its request parts come from the TypeBox schemas too.
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    await dashboardPlugins(plugin);
    sessionPages(scope, services, kit);
    keyPages(scope, services, kit);
    adminPages(scope, services, kit);
    blocklistPages(scope, services, kit);
  });
}
