/**
 * Dashboard Settings → Webhooks and Settings → Saved IPs (CONTRACT §11) for the signed-in user:
 * the same session cookie and per-session CSRF token as the rest of /dashboard, in its own scope
 * so the API stays JSON-only. The saved-IP cap is that of the user's highest key tier.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TIER_NAMES, type TierName, type User } from '../../accounts/index.ts';
import { isAppError } from '../../core/errors.ts';
import { parseIp } from '../../core/ip.ts';
import { type SavedIpView, savedIpsPage } from '../../web/saved-ips-page.ts';
import { webhooksPage } from '../../web/webhooks-page.ts';
import { SAVED_IP_CAPS } from '../../webhooks/index.ts';
import type { HttpApp, HttpServices } from '../context.ts';
import { dashboardPlugins, sameToken, sessionOf, toPasswordChange, toSignIn } from '../dashboard-session.ts';
import { sendHtml } from '../html-reply.ts';

const LOG_ROWS = 10;

function formField(body: unknown, name: string): string {
  const v = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  return typeof v === 'string' ? v.trim() : '';
}

type Session = { user: User; csrf: string };
type Extra = { error?: string; notice?: string };

/** What the webhook and saved-IP pages share: the session, the tier, the two pages, form actions. */
function webhooksKit(services: HttpServices) {
  const { accounts, webhooks } = services;

  /** The signed-in user (of a form whose CSRF token matches); null sends the caller to sign-in. */
  const session = async (request: FastifyRequest, form: boolean): Promise<Session | null> => {
    const s = await sessionOf(accounts, request);
    if (!s || (form && !sameToken(formField(request.body, '_csrf'), s.csrf))) return null;
    return s;
  };

  const tierOf = async (user: User): Promise<TierName> => {
    const keys = await accounts.listKeys({ ownerId: user.id });
    const rank = Math.max(0, ...keys.map((k) => TIER_NAMES.indexOf(k.tier)));
    return TIER_NAMES[rank] ?? 'free';
  };

  const savedState = (ip: string): Pick<SavedIpView, 'listed' | 'threat_level'> => {
    const parsed = parseIp(ip);
    const answer = parsed ? services.intel.current()?.lookup(parsed) : null;
    return { listed: services.listingFor(ip)?.type ?? null, threat_level: answer?.threat.level ?? null };
  };

  const viewerOf = (s: Session) => ({ email: s.user.email, role: s.user.role, csrf: s.csrf });

  const render = async (
    reply: FastifyReply,
    s: Session,
    extra: { created?: { url: string; secret: string } } & Extra = {},
    status = 200,
  ) => {
    const owner = s.user.id;
    const hooks = await Promise.all(
      (await webhooks.hooks(owner)).map(async (h) => ({
        ...h,
        attempts: (await webhooks.deliveries(owner, h.id, LOG_ROWS, 0)) ?? [],
      })),
    );
    return sendHtml(reply, webhooksPage({ viewer: viewerOf(s), hooks, ...extra }), status);
  };

  const renderSaved = async (reply: FastifyReply, s: Session, extra: Extra = {}, status = 200) => {
    const saved = (await webhooks.savedIps(s.user.id, 1000, 0)).items.map((i) => ({
      ...i,
      ...savedState(i.ip),
    }));
    const cap = SAVED_IP_CAPS[await tierOf(s.user)];
    return sendHtml(reply, savedIpsPage({ viewer: viewerOf(s), savedIps: saved, cap, ...extra }), status);
  };

  const back = (reply: FastifyReply, to = '/dashboard/webhooks') =>
    reply.code(303).header('location', to).send();
  /** Runs a form action; a domain refusal is shown on the page (`again`), anything else is a bug. */
  const attempt = async (
    reply: FastifyReply,
    s: Session,
    work: () => Promise<FastifyReply>,
    again: typeof render | typeof renderSaved = render,
  ) => {
    try {
      return await work();
    } catch (err) {
      if (isAppError(err)) return again(reply, s, { error: err.message }, err.status);
      throw err;
    }
  };
  return { session, tierOf, render, renderSaved, back, attempt };
}
type Kit = ReturnType<typeof webhooksKit>;

const denied = toSignIn;
const route = { config: { access: { kind: 'none' as const } }, schema: { hide: true } };

/** Settings → Webhooks: the list with each hook's delivery log, create, delete, test ping. */
function webhookPages(scope: HttpApp, services: HttpServices, kit: Kit): void {
  const { webhooks } = services;
  const { session, render, back, attempt } = kit;
  const hookRoute = {
    ...route,
    schema: { hide: true, params: Type.Object({ id: Type.String({ pattern: '^[0-9]{1,15}$' }) }) },
  };
  scope.get('/dashboard/webhooks', route, async (request, reply) => {
    const s = await session(request, false);
    if (!s) return denied(reply);
    if (s.user.mustChangePassword) return toPasswordChange(reply);
    return render(reply, s);
  });

  scope.post('/dashboard/webhooks', route, async (request, reply) => {
    const s = await session(request, true);
    if (!s) return denied(reply);
    if (s.user.mustChangePassword) return toPasswordChange(reply);
    const secret = formField(request.body, 'secret');
    return attempt(reply, s, async () => {
      const hook = await webhooks.createHook(s.user.id, formField(request.body, 'url'), secret || undefined);
      return render(reply, s, { created: { url: hook.url, secret: hook.secret } });
    });
  });

  scope.post('/dashboard/webhooks/:id/delete', hookRoute, async (request, reply) => {
    const s = await session(request, true);
    if (!s) return denied(reply);
    if (s.user.mustChangePassword) return toPasswordChange(reply);
    if (!(await webhooks.removeHook(s.user.id, Number(request.params.id))))
      return render(reply, s, { error: 'No such webhook.' }, 404);
    return back(reply);
  });

  scope.post('/dashboard/webhooks/:id/test', hookRoute, async (request, reply) => {
    const s = await session(request, true);
    if (!s) return denied(reply);
    if (s.user.mustChangePassword) return toPasswordChange(reply);
    const queued = await webhooks.ping(s.user.id, Number(request.params.id));
    if (!queued) return render(reply, s, { error: 'No such webhook.' }, 404);
    return render(reply, s, {
      notice: `Test ping ${queued.event_id} queued; it appears in the log once sent.`,
    });
  });
}

/** Settings → Saved IPs: the list with each address's listing and threat level, save, remove. */
function savedIpPages(scope: HttpApp, services: HttpServices, kit: Kit): void {
  const { webhooks } = services;
  const { session, tierOf, renderSaved, back, attempt } = kit;
  scope.get('/dashboard/saved-ips', route, async (request, reply) => {
    const s = await session(request, false);
    if (!s) return denied(reply);
    if (s.user.mustChangePassword) return toPasswordChange(reply);
    return renderSaved(reply, s);
  });

  scope.post('/dashboard/saved-ips', route, async (request, reply) => {
    const s = await session(request, true);
    if (!s) return denied(reply);
    if (s.user.mustChangePassword) return toPasswordChange(reply);
    const work = async () => {
      const tier = await tierOf(s.user);
      await webhooks.saveIp(s.user.id, tier, formField(request.body, 'ip'), formField(request.body, 'label'));
      return back(reply, '/dashboard/saved-ips');
    };
    return attempt(reply, s, work, renderSaved);
  });

  scope.post('/dashboard/saved-ips/remove', route, async (request, reply) => {
    const s = await session(request, true);
    if (!s) return denied(reply);
    if (s.user.mustChangePassword) return toPasswordChange(reply);
    const work = async () => {
      if (!(await webhooks.removeSavedIp(s.user.id, formField(request.body, 'ip'))))
        return renderSaved(reply, s, { error: 'That address is not saved.' }, 404);
      return back(reply, '/dashboard/saved-ips');
    };
    return attempt(reply, s, work, renderSaved);
  });
}

export function dashboardWebhookRoutes(app: HttpApp, services: HttpServices): void {
  const kit = webhooksKit(services);
  app.register(async (plugin) => {
    // An encapsulated scope is typed afresh: its request parts come from the TypeBox schemas too.
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    await dashboardPlugins(plugin);
    webhookPages(scope, services, kit);
    savedIpPages(scope, services, kit);
  });
}
