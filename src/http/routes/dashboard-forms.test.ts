/**
 * Issue 20 finding 1: every dashboard form, posted as JSON with a field of the wrong type (a
 * number, null, an object, a list of non-text), is a 400 page that names the field, never a
 * 500 and never a silent default; a body that is not an object is a 400 too. Forged posts (a
 * `_csrf` that is not the session's text token) still go back to sign-in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { STORE_KINDS, skipStore } from '../../../test/helpers/stores.ts';

const ADMIN = { email: 'forms-admin@example.test', password: 'admin-password-1' };
const WRONG: unknown[] = [1, -1.5, 1e308, true, null, {}, { a: 'b' }, [1], ['a', 2], [[]], [null]];

describe.each(STORE_KINDS)('dashboard forms with wrong-type fields (%s)', (kind) => {
  let t: TestApp;
  let cookie: string;
  let csrf: string;
  let client = 0;

  /** A post from its own client address, so the sign-in limit (10/min per client) is not what answers. */
  const post = async (url: string, body: unknown, signedIn = true) => {
    client++;
    const r = await t.app.http.inject({
      method: 'POST',
      url,
      remoteAddress: `10.20.${client >> 8}.${client & 255}`,
      headers: { 'content-type': 'application/json', ...(signedIn ? { cookie } : {}) },
      payload: JSON.stringify(body),
    });
    return { status: r.statusCode, body: r.body, type: String(r.headers['content-type']) };
  };

  beforeAll(async () => {
    if (skipStore(kind)) return;
    t = await createTestApp(kind);
    await t.app.services.accounts.createUser({ ...ADMIN, role: 'admin' });
    const login = await t.app.http.inject({
      method: 'POST',
      url: '/dashboard/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(ADMIN).toString(),
    });
    expect(login.statusCode).toBe(303);
    const set = String(login.headers['set-cookie']);
    cookie = set.split(';')[0] as string;
    const page = await t.app.http.inject({ url: '/dashboard/keys', headers: { cookie } });
    csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
    expect(csrf).not.toBe('');
  });
  afterAll(async () => t?.close());

  it.skipIf(skipStore(kind))('sign-in: each field of the wrong type is a 400 page naming it', async () => {
    for (const field of ['email', 'password']) {
      for (const value of WRONG) {
        const body = { ...ADMIN, [field]: value };
        const r = await post('/dashboard/login', body, false);
        expect([field, value, r.status]).toEqual([field, value, 400]);
        expect(r.type).toContain('text/html');
        expect(r.body).toContain(`The field &quot;${field}&quot; must be text.`);
      }
    }
    for (const body of [[1], 1, 'x', true, [ADMIN]]) {
      const r = await post('/dashboard/login', body, false);
      expect([body, r.status]).toEqual([body, 400]);
      expect(r.body).toContain('The form could not be read');
    }
    // Text still signs in; an unknown field of any type is ignored.
    expect((await post('/dashboard/login', { ...ADMIN, extra: { a: 1 } }, false)).status).toBe(303);
  });

  const forms: { url: string; fields: Record<string, unknown> }[] = [
    { url: '/dashboard/keys', fields: { name: 'k', tier: 'free', permissions: ['ip:read'] } },
    { url: '/dashboard/keys/1/revoke', fields: {} },
    { url: '/dashboard/keys/1/features', fields: { features: ['fcrdns'] } },
    {
      url: '/dashboard/blocklist/list',
      fields: { ip: '198.51.100.20', type: 'spam', reason: 'r', expires_days: '5' },
    },
    { url: '/dashboard/blocklist/delist', fields: { ip: '198.51.100.20' } },
    { url: '/dashboard/logout', fields: {} },
  ];

  it.skipIf(skipStore(kind))(
    'signed-in forms: each field of the wrong type is a 400 page naming it',
    async () => {
      const keysBefore = (await t.app.services.accounts.listKeys({})).length;
      let cases = 0;
      for (const form of forms) {
        if (form.url === '/dashboard/logout') continue;
        for (const field of Object.keys(form.fields)) {
          for (const value of WRONG) {
            const r = await post(form.url, { _csrf: csrf, ...form.fields, [field]: value });
            expect([form.url, field, value, r.status]).toEqual([form.url, field, value, 400]);
            expect(r.body).toContain(`The field &quot;${field}&quot; must be text.`);
            cases++;
          }
        }
        for (const body of [[csrf], 7, 'text']) {
          const r = await post(form.url, body);
          // Without a readable _csrf the post is treated as forged: back to sign-in.
          expect([form.url, body, r.status]).toEqual([form.url, body, 303]);
        }
      }
      expect(cases).toBeGreaterThan(80);
      // Nothing was created or listed by a refused post: `expires_days: 5` (a number) is not "no expiry".
      expect((await t.app.services.accounts.listKeys({})).length).toBe(keysBefore);
      const listed = await t.app.http.inject({
        url: '/v1/blocklist/ip/198.51.100.20',
        headers: { 'x-api-key': await t.key() },
      });
      expect(listed.json().data.listed).toBe(false);
    },
  );

  it.skipIf(skipStore(kind))(
    'a _csrf that is not text is a forged post on every form (303 to sign-in)',
    async () => {
      for (const form of forms) {
        for (const value of WRONG) {
          const r = await post(form.url, { ...form.fields, _csrf: value });
          expect([form.url, value, r.status]).toEqual([form.url, value, 303]);
        }
      }
      // The session survived every forged logout.
      const page = await t.app.http.inject({ url: '/dashboard/keys', headers: { cookie } });
      expect(page.statusCode).toBe(200);
    },
  );

  /** A sign-in with `value` as its email or password: 400 when it holds a NUL, else 401. */
  const expectSignInRefuses = async (value: string) => {
    for (const field of ['email', 'password']) {
      const r = await post('/dashboard/login', { ...ADMIN, [field]: value }, false);
      expect([field, value.slice(0, 8), r.status]).toEqual([
        field,
        value.slice(0, 8),
        value.includes('\u0000') ? 400 : 401,
      ]);
    }
  };

  /** Every form but logout with `value` in each of its fields in turn: never a 5xx. */
  const expectFormsBear = async (value: string) => {
    for (const form of forms) {
      if (form.url === '/dashboard/logout') continue;
      for (const field of Object.keys(form.fields)) {
        const r = await post(form.url, { _csrf: csrf, ...form.fields, [field]: value });
        expect([form.url, field, value.slice(0, 8), r.status < 500]).toEqual([
          form.url,
          field,
          value.slice(0, 8),
          true,
        ]);
      }
    }
  };

  it.skipIf(skipStore(kind))('odd text (NUL, huge, unicode) in every field is never a 5xx', async () => {
    for (const field of ['email', 'password']) {
      const r = await post('/dashboard/login', { ...ADMIN, [field]: 'a\u0000b' }, false);
      expect(r.status).toBe(400);
      expect(r.body).toContain(`The field &quot;${field}&quot; must not contain NUL characters.`);
    }
    const odd = ['a\u0000b', 'x'.repeat(20_000), '\u{1F600}\u202E', ' ', '%00', '\ud800'];
    for (const value of odd) {
      await expectSignInRefuses(value);
      await expectFormsBear(value);
    }
  });

  it.skipIf(skipStore(kind))(
    'a key id that is no key (text, huge, negative, unicode) is a 404 page',
    async () => {
      const { info } = await t.app.services.accounts.createKey({
        ownerId: t.adminId,
        name: 'kept',
        tier: 'free',
        permissions: ['ip:read'],
      });
      const k = info.id;
      const ids = ['abc', '99999999999999999999', '-1', '0', '%C3%A9', '%00', '%20' + k];
      ids.push(`0x${k.toString(16)}`, `${k}.0`, `${k}e0`, `+${k}`, `0${k}`);
      for (const id of ids) {
        for (const action of ['revoke', 'features']) {
          const r = await post(`/dashboard/keys/${id}/${action}`, { _csrf: csrf, features: [] });
          expect([id, action, r.status]).toEqual([id, action, 404]);
          expect(r.body).toContain('No such key.');
        }
      }
      // None of those spellings reached the key.
      const kept = (await t.app.services.accounts.listKeys({})).find((i) => i.id === k);
      expect(kept).toBeDefined();
    },
  );

  it.skipIf(skipStore(kind))('the same forms with text fields still work', async () => {
    const listed = await post('/dashboard/blocklist/list', { _csrf: csrf, ...forms[3]?.fields });
    expect(listed.status).toBe(200);
    expect(listed.body).toContain('Listed 198.51.100.20');
    const created = await post('/dashboard/keys', {
      _csrf: csrf,
      name: 'json',
      tier: 'free',
      permissions: 'ip:read',
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatch(/nrp_[A-Za-z0-9]{40}/);
  });
});
