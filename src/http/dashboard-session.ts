/**
 * The dashboard's session, shared by every /dashboard scope: the cookie, reading the signed-in
 * user from it, the per-session CSRF check (constant time) and the redirects a page answers with
 * when there is no session or the user must first change a one-time password; and the scope
 * every /dashboard plugin registers its pages in.
 */
import crypto from 'node:crypto';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Accounts, User } from '../accounts/index.ts';
import { unavailablePage } from '../web/pages.ts';
import { storeOutagePages } from './html-reply.ts';

export const SESSION_COOKIE = 'netrep_session';

export interface DashboardSession {
  user: User;
  csrf: string;
  token: string;
}

/** The session of the request's cookie, or null. */
export async function sessionOf(
  accounts: Accounts,
  request: FastifyRequest,
): Promise<DashboardSession | null> {
  const token = request.cookies[SESSION_COOKIE];
  if (!token) return null;
  const s = await accounts.session(token);
  return s ? { ...s, token } : null;
}

/** A posted CSRF token equals the session's, compared in constant time. */
export function sameToken(posted: string, expected: string): boolean {
  const a = Buffer.from(posted);
  const b = Buffer.from(expected);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

/** No session (or a forged form): back to sign-in. */
export function toSignIn(reply: FastifyReply): FastifyReply {
  return reply.code(303).header('location', '/dashboard/login').send();
}

/** A one-time password not yet replaced: every page leads to the change. */
export function toPasswordChange(reply: FastifyReply): FastifyReply {
  return reply.code(303).header('location', '/dashboard/password').send();
}

/**
 * What every /dashboard plugin registers first: a store outage answers with a page, cookies are
 * read, form bodies up to 16 KB are parsed. (It returns nothing: a Fastify instance is a thenable,
 * so an async function returning one would wait on the whole plugin tree.)
 */
export async function dashboardPlugins(plugin: FastifyInstance): Promise<void> {
  storeOutagePages(plugin, unavailablePage);
  await plugin.register(cookie);
  await plugin.register(formbody, { bodyLimit: 16 * 1024 });
}
