/**
 * The dashboard's users page (administrators): every user with its sign-in state, and an Unlock
 * button for an account the per-account sign-in limit locked (accounts README).
 */
import type { User } from '../accounts/index.ts';
import { esc, page } from './html.ts';
import type { Viewer } from './pages.ts';

const minute = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');

function signInState(u: User): string {
  if (u.lockedUntil !== null) return `<strong>Locked</strong> until ${minute(u.lockedUntil)} UTC`;
  if (u.failedSignIns > 0) return `${u.failedSignIns} failed sign-in${u.failedSignIns === 1 ? '' : 's'}`;
  return u.mustChangePassword ? 'Must change password' : 'OK';
}

export function usersPage(options: {
  viewer: Viewer;
  users: User[];
  notice?: string;
  error?: string;
}): string {
  const { viewer } = options;
  const rows = options.users
    .map((u) => {
      const unlock =
        u.lockedUntil !== null || u.failedSignIns > 0
          ? `<form method="post" action="/dashboard/users/unlock" style="margin:0"><input type="hidden" name="_csrf" value="${esc(viewer.csrf)}"><input type="hidden" name="email" value="${esc(u.email)}"><button type="submit">Unlock<span class="visually-hidden"> ${esc(u.email)}</span></button></form>`
          : '';
      return `<tr><td>${esc(u.email)}</td><td>${esc(u.role)}</td><td>${minute(u.createdAt)}</td><td>${signInState(u)}</td><td>${unlock}</td></tr>`;
    })
    .join('\n');
  const body = `<h1>Users</h1>
${options.notice ? `<p role="status">${esc(options.notice)}</p>` : ''}
${options.error ? `<p class="error" role="alert">${esc(options.error)}</p>` : ''}
<p class="muted">Ten failed sign-ins to one account within 15 minutes, from any addresses, lock it for 15 minutes. Create users with <code>netrep users create</code>.</p>
<section><h2>All users</h2><table class="stack"><thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Created (UTC)</th><th scope="col">Sign-in</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${rows}</tbody></table></section>`;
  return page('Users', body, { ...viewer, current: '/dashboard/users' });
}
