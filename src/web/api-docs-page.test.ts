/** /docs drawn from /openapi.json (issue 36 item 3): every operation, its parameters, answer fields and example. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntelTestApp, type IntelTestApp } from '../../test/helpers/intel-app.ts';

let t: IntelTestApp;

describe('GET /docs', () => {
  beforeAll(async () => {
    t = await createIntelTestApp('sqlite');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('/docs and each /docs/{tag} are HTML without script; the tag pages hold every operation of /openapi.json', async () => {
    const res = await t.app.http.inject({ method: 'GET', url: '/docs' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toContain("script-src 'none'");
    expect(res.body).not.toContain('<script');
    const doc = (await t.app.http.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { operationId: string; tags: string[] }>>;
    };
    const ops = Object.entries(doc.paths).flatMap(([p, item]) =>
      Object.entries(item).map(([m, op]) => ({
        tag: op.tags[0],
        line: `${m.toUpperCase()} ${p}`,
        id: op.operationId,
      })),
    );
    expect(ops.length).toBeGreaterThan(30);
    const pages = new Map<string, string>();
    for (const op of ops) {
      expect(res.body, op.line).toContain(`<code>${op.line}</code>`);
      const tag = op.tag ?? '';
      if (!pages.has(tag)) {
        const r = await t.app.http.inject({ method: 'GET', url: `/docs/${tag}` });
        expect(r.statusCode, tag).toBe(200);
        expect(r.body).not.toContain('<script');
        pages.set(tag, r.body);
      }
      expect(pages.get(tag), op.line).toContain(`id="op-${op.id}"`);
    }
  });

  it("shows an operation's parameters, answer fields, access and example", async () => {
    const body = (await t.app.http.inject({ method: 'GET', url: '/docs/ip' })).body;
    const op = body.slice(body.indexOf('id="op-lookupIp"'), body.indexOf('id="op-lookupIpBatch"'));
    expect(op).toContain('<code>ip</code> (required)');
    expect(op).toContain('<code>netrep.is_tor_exit</code>');
    expect(op).toContain('Needs an API key');
    expect(op).toContain('Example answer');
    expect(op).toContain('&quot;asn_name&quot;');
  });

  it('an unknown section is a 404 page; the old Swagger UI paths are gone', async () => {
    const missing = await t.app.http.inject({ method: 'GET', url: '/docs/nope' });
    expect(missing.statusCode).toBe(404);
    expect(missing.body).toContain('href="/docs"');
    expect((await t.app.http.inject({ method: 'GET', url: '/docs/static/index.html' })).statusCode).toBe(404);
  });
});
