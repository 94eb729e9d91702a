/**
 * Dashboard → Reports (issue #38 item 2): the signed-in user's own DMARC and TLS reports, read
 * through the same views as /v1/email/reports/domains (the user is the owner, as a key of theirs
 * would be), an upload form that goes through the same ingest as POST /v1/email/reports, the
 * rejected uploads, and the sources CSV by the same writer. Pages answer refused input (a bad
 * date, domain or file) with the page and its message, never the JSON envelope.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isAppError } from '../../core/errors.ts';
import { sourcesCsv, viewDomain } from '../../reports/index.ts';
import type { Viewer } from '../../web/pages.ts';
import {
  type DomainQuery,
  type DomainViews,
  rejectedReportsPage,
  reportDomainPage,
  reportsPage,
  type UploadOutcome,
} from '../../web/reports-page.ts';
import type { HttpApp, HttpServices } from '../context.ts';
import { dashboardPlugins, sameToken, sessionOf, toPasswordChange, toSignIn } from '../dashboard-session.ts';
import { sendHtml } from '../html-reply.ts';
import { httpReportViews } from '../report-views.ts';

/*
 * The parts of a multipart/form-data body (RFC 7578) as a browser posts the upload form: each
 * part's bytes and Content-Type by its field name (the first part of a name wins). Only what the
 * upload needs: no nested multipart, no transfer encodings (browsers send none).
 */

interface FormPart {
  bytes: Buffer;
  /** The part's media type, lower case, parameters dropped; null when it names none. */
  type: string | null;
}

const BOUNDARY = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i;

function boundaryOf(contentType: string): string | null {
  if (!/^\s*multipart\/form-data\s*;/i.test(contentType)) return null;
  const m = BOUNDARY.exec(contentType);
  return m?.[1] ?? m?.[2] ?? null;
}

/** The part whose head starts at `at` (after its CRLF): name, part and where the next delimiter ends. */
function partAt(body: Buffer, at: number, between: Buffer) {
  const headEnd = body.indexOf('\r\n\r\n', at);
  const end = headEnd < 0 ? -1 : body.indexOf(between, headEnd + 4);
  if (end < 0) return null;
  const head = body.subarray(at, headEnd).toString('latin1');
  const name = /^content-disposition:\s*form-data\s*;(?:[^\r\n]*;)?\s*name="([^"]*)"/im.exec(head)?.[1];
  const type = /^content-type:\s*([^;\r\n]+)/im.exec(head)?.[1]?.trim().toLowerCase() ?? null;
  return { name, part: { bytes: body.subarray(headEnd + 4, end), type }, next: end + between.length };
}

/** The parts by name, or null when the body is not multipart/form-data or is cut short. */
function multipartParts(body: Buffer, contentType: string): Map<string, FormPart> | null {
  const boundary = boundaryOf(contentType);
  if (!boundary) return null;
  const opening = Buffer.from(`--${boundary}`);
  const between = Buffer.from(`\r\n--${boundary}`);
  let at = body.indexOf(opening);
  // The first delimiter opens the body or a line of its own (a preamble before it is ignored).
  if (at < 0 || (at > 0 && body.subarray(at - 2, at).toString('latin1') !== '\r\n')) return null;
  at += opening.length;
  const parts = new Map<string, FormPart>();
  for (;;) {
    const after = body.subarray(at, at + 2).toString('latin1');
    if (after === '--') return parts;
    const read = after === '\r\n' ? partAt(body, at + 2, between) : null;
    if (!read) return null;
    if (read.name !== undefined && !parts.has(read.name)) parts.set(read.name, read.part);
    at = read.next;
  }
}

const route = { config: { access: { kind: 'none' as const } }, schema: { hide: true } };
const SOURCES_PAGE = 50;
const CSV_ROWS = 500;
const FAILURE_ROWS = 20;
/** The multipart wrapping around the file (boundaries, part heads, the CSRF field) may add this much. */
const FORM_OVERHEAD = 64 * 1024;

type Signed = {
  user: { id: number; email: string; role: string; mustChangePassword: boolean };
  csrf: string;
};
const viewerOf = (s: Signed): Viewer => ({ email: s.user.email, role: s.user.role, csrf: s.csrf });

/** One text value of a query parameter (the first, when repeated), or undefined. */
function queryText(query: unknown, name: string): string | undefined {
  const v =
    typeof query === 'object' && query !== null ? (query as Record<string, unknown>)[name] : undefined;
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === 'string' && first !== '' ? first.slice(0, 100) : undefined;
}

/** The domain page's query, or what is wrong with it. */
function domainQueryOf(query: unknown): { q: DomainQuery; error?: string } {
  const group = queryText(query, 'group') ?? 'ip';
  const offset = queryText(query, 'offset') ?? '0';
  const q: DomainQuery = {
    from: queryText(query, 'from'),
    to: queryText(query, 'to'),
    group: group === 'organization' ? 'organization' : 'ip',
    offset: /^\d{1,7}$/.test(offset) ? Number(offset) : 0,
  };
  if (group !== 'ip' && group !== 'organization') return { q, error: 'group must be ip or organization.' };
  if (!/^\d{1,7}$/.test(offset)) return { q, error: 'offset must be a whole number up to 9999999.' };
  return { q };
}

const idOf = (v: string | undefined) => (v && /^[1-9]\d{0,14}$/.test(v) ? Number(v) : null);

/** What the reports pages share: the views, the signed-in user, the list page, the upload. */
function reportsKit(services: HttpServices) {
  const { accounts, reports } = services;
  const views = httpReportViews(services);

  /** The signed-in user, or the redirect to answer with (sign-in, or the password change first). */
  const signedIn = async (request: FastifyRequest, reply: FastifyReply) => {
    const s = await sessionOf(accounts, request);
    if (!s) return { done: toSignIn(reply) };
    if (s.user.mustChangePassword) return { done: toPasswordChange(reply) };
    return { s };
  };

  const renderList = async (
    reply: FastifyReply,
    s: Signed,
    extra: { outcome?: UploadOutcome; error?: string } = {},
    status = 200,
  ) => {
    const { domains, total } = await views.domains(s.user.id, 1000, 0);
    return sendHtml(reply, reportsPage({ viewer: viewerOf(s), domains, total, ...extra }), status);
  };

  /** The outcome a 303 after an upload names (?stored=, ?duplicate=, ?rejected=), the user's own only. */
  const outcomeOf = async (ownerId: number, query: unknown): Promise<UploadOutcome | undefined> => {
    for (const kind of ['stored', 'duplicate'] as const) {
      const id = idOf(queryText(query, kind));
      const report = id === null ? null : await reports.get(ownerId, id);
      if (report) return { kind, report };
    }
    const id = idOf(queryText(query, 'rejected'));
    if (id === null) return undefined;
    const found = (await reports.rejections(ownerId, 200, 0)).items.find((r) => r.id === id);
    return found ? { kind: 'rejected', id, reason: found.reason } : undefined;
  };

  /** The posted file, or the message and status the list answers with instead. */
  const fileOf = (parts: Map<string, FormPart> | null) => {
    const file = parts?.get('report');
    if (!file || file.bytes.length === 0) return { error: 'Choose a report file to upload.', status: 400 };
    const max = services.config.reportsMaxUploadBytes;
    if (file.bytes.length > max)
      return {
        error: `The file is larger than ${max} bytes (NETREP_REPORTS_MAX_UPLOAD_BYTES).`,
        status: 413,
      };
    return { file };
  };

  /** Stores the file through the API's ingest; 303 to its outcome (stored, duplicate or rejected). */
  const store = async (reply: FastifyReply, s: Signed, file: FormPart) => {
    const back = (query: string) => reply.code(303).header('location', `/dashboard/reports?${query}`).send();
    try {
      const stored = await reports.ingest(s.user.id, file.bytes, file.type);
      return back(`${stored.duplicate ? 'duplicate' : 'stored'}=${stored.id}`);
    } catch (err) {
      if (!isAppError(err)) throw err;
      const rejected = err.meta?.rejected_id;
      if (typeof rejected === 'number') return back(`rejected=${rejected}`);
      return renderList(reply, s, { error: err.message }, err.status);
    }
  };

  /** The upload: its parts read, the CSRF field checked, then the file stored. */
  const upload = async (request: FastifyRequest, reply: FastifyReply) => {
    const s = await sessionOf(accounts, request);
    if (!s) return toSignIn(reply);
    const type = String(request.headers['content-type'] ?? '');
    const parts = Buffer.isBuffer(request.body) ? multipartParts(request.body, type) : null;
    const csrf = parts?.get('_csrf')?.bytes.toString('utf8');
    if (!sameToken(csrf ?? '', s.csrf)) return toSignIn(reply);
    if (s.user.mustChangePassword) return toPasswordChange(reply);
    const read = fileOf(parts);
    return read.file ? store(reply, s, read.file) : renderList(reply, s, { error: read.error }, read.status);
  };

  return { views, signedIn, renderList, outcomeOf, upload };
}
type Kit = ReturnType<typeof reportsKit>;

/** A domain's page or its sources CSV: the four views; a refusal (period, domain, evidence) is the page's message. */
function domainPageOf(kit: Kit) {
  const { views, signedIn } = kit;
  return async (request: FastifyRequest, reply: FastifyReply, csv: boolean) => {
    const signed = await signedIn(request, reply);
    if (!signed.s) return signed.done;
    const s = signed.s;
    const raw = String((request.params as { domain?: string }).domain ?? '');
    const { q, error } = domainQueryOf(request.query);
    const shown = raw.slice(0, 253);
    const refuse = (message: string, status: number) =>
      sendHtml(
        reply,
        reportDomainPage({ viewer: viewerOf(s), domain: shown, query: q, error: message }),
        status,
      );
    if (error) return refuse(error, 400);
    try {
      const domain = viewDomain(raw);
      const period = { from: q.from, to: q.to };
      if (csv) {
        const answer = await views.sources(s.user.id, domain, {
          ...period,
          group: q.group,
          limit: CSV_ROWS,
          offset: 0,
        });
        reply.header(
          'content-disposition',
          `attachment; filename="${domain}-sources-${answer.period.from}-${answer.period.to}.csv"`,
        );
        return reply
          .type('text/csv; charset=utf-8; header=present')
          .header('cache-control', 'no-store')
          .send(sourcesCsv(answer));
      }
      const owner = s.user.id;
      const result: DomainViews = {
        summary: await views.summary(owner, domain, period),
        sources: await views.sources(owner, domain, {
          ...period,
          group: q.group,
          limit: SOURCES_PAGE,
          offset: q.offset,
        }),
        failures: await views.failures(owner, domain, { ...period, limit: FAILURE_ROWS, offset: 0 }),
        tls: await views.tls(owner, domain, period),
      };
      return sendHtml(reply, reportDomainPage({ viewer: viewerOf(s), domain, query: q, views: result }));
    } catch (err) {
      if (!isAppError(err)) throw err;
      return refuse(`${err.message}.`, err.status);
    }
  };
}

export function dashboardReportRoutes(app: HttpApp, services: HttpServices): void {
  const kit = reportsKit(services);
  const { signedIn, renderList, outcomeOf, upload } = kit;
  const { reports } = services;
  const domainPage = domainPageOf(kit);
  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    await dashboardPlugins(plugin);
    scope.get('/dashboard/reports', route, async (request, reply) => {
      const signed = await signedIn(request, reply);
      if (!signed.s) return signed.done;
      return renderList(reply, signed.s, { outcome: await outcomeOf(signed.s.user.id, request.query) });
    });
    scope.get('/dashboard/reports/rejected', route, async (request, reply) => {
      const signed = await signedIn(request, reply);
      if (!signed.s) return signed.done;
      const page = await reports.rejections(signed.s.user.id, 100, 0);
      return sendHtml(
        reply,
        rejectedReportsPage({ viewer: viewerOf(signed.s), rejected: page.items, total: page.total }),
      );
    });
    scope.get('/dashboard/reports/:domain', route, (request, reply) => domainPage(request, reply, false));
    scope.get('/dashboard/reports/:domain/sources.csv', route, (request, reply) =>
      domainPage(request, reply, true),
    );
  });

  app.register(async (plugin) => {
    await dashboardPlugins(plugin);
    // The upload is multipart: every body is taken as bytes and its parts read here.
    plugin.removeAllContentTypeParsers();
    plugin.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    plugin.post(
      '/dashboard/reports/upload',
      { ...route, bodyLimit: services.config.reportsMaxUploadBytes + FORM_OVERHEAD },
      upload,
    );
  });
}
