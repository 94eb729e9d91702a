/**
 * Mail operators' reports (issue #38 item 1): upload a DMARC aggregate, DMARC failure or SMTP TLS
 * report (XML, gzip, zip, JSON or the whole email carrying it), list what was stored and what was
 * refused. Everything is the caller's own: another owner's report is 404.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import { AppError } from '../../core/errors.ts';
import { ACCEPTED_TYPES, RejectedReport, ReportAnswer, ReportSummary } from '../../reports/index.ts';
import type { Access, HttpApp, HttpServices } from '../context.ts';
import type { OperationExamples } from '../openapi.ts';
import { envelope, errorResponses } from '../schemas.ts';

// Reports are the owner's own email data: the email permission reads them and adds to them.
const ACCESS: Access = { kind: 'key', permission: 'email:read' };

const Paging = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 50, description: 'Page size, 1-1000' }),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: 'Rows to skip' }),
});

const PageCounts = { total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() };

/** A paged list route of this file: its access, tag, paging query and one answer. */
function listSchema<R extends TSchema>(o: {
  operationId: string;
  examples: OperationExamples;
  summary: string;
  response: R;
}) {
  return {
    config: { access: ACCESS },
    schema: {
      tags: ['email'],
      operationId: o.operationId,
      examples: o.examples,
      summary: o.summary,
      querystring: Paging,
      response: { 200: o.response },
    },
  };
}

const Stored = Type.Composite([
  ReportSummary,
  Type.Object({
    duplicate: Type.Boolean({
      description: 'True when this report was stored before: nothing new was written.',
    }),
  }),
]);

const summary = {
  id: 7,
  kind: 'aggregate',
  org_name: 'google.com',
  report_id: '949348866075514174',
  domain: 'example.com',
  contact: 'noreply-dmarc-support@google.com',
  begin: '2019-02-12T00:00:00.000Z',
  end: '2019-02-12T23:59:59.000Z',
  record_count: 1,
  message_count: 2,
  source_format: 'eml>zip>xml',
  received_at: '2026-06-15T12:00:00.000Z',
};

const uploadExample: OperationExamples = { response: { ...summary, duplicate: false } };
const listExample: OperationExamples = { response: { reports: [summary], total: 1, limit: 50, offset: 0 } };
const getExample: OperationExamples = {
  response: {
    ...summary,
    policy_published: {
      domain: 'example.com',
      adkim: 'r',
      aspf: 'r',
      p: 'none',
      sp: 'none',
      np: null,
      pct: 100,
      fo: null,
      testing: null,
      discovery_method: null,
    },
    records: [
      {
        source_ip: '209.85.220.41',
        count: 2,
        disposition: 'none',
        dkim: 'pass',
        spf: 'pass',
        reasons: [],
        header_from: 'example.com',
        envelope_from: 'example.com',
        envelope_to: null,
        dkim_results: [
          { domain: 'example.com', selector: 'mail', scope: null, result: 'pass', human_result: null },
        ],
        spf_results: [
          { domain: 'example.com', selector: null, scope: 'mfrom', result: 'pass', human_result: null },
        ],
      },
    ],
    failures: [],
    tls_policies: [],
  },
};
const rejectedExample: OperationExamples = {
  response: {
    rejected: [
      {
        id: 3,
        reason: 'XML: a document type declaration is not accepted',
        content_type: 'application/xml',
        size: 41,
        raw_base64: 'PCFET0NUWVBFIGZlZWRiYWNrIFs8IUVOVElUWSBhICJhIj5dPg==',
        raw_truncated: false,
        received_at: '2026-06-15T12:00:00.000Z',
      },
    ],
    total: 1,
    limit: 50,
    offset: 0,
  },
};

/** The media type alone, lower case (`application/xml; charset=utf-8` → `application/xml`). */
function mediaType(header: string | undefined): string | null {
  const type = header?.split(';')[0]?.trim().toLowerCase();
  return type ? type : null;
}

export function emailReportRoutes(app: HttpApp, services: HttpServices): void {
  uploadRoute(app, services);
  readRoutes(app, services);
}

function uploadRoute(app: HttpApp, services: HttpServices): void {
  const { reports } = services;
  app.register(async (plugin) => {
    // Every body is taken as bytes here: the report reader decides what they are.
    plugin.removeAllContentTypeParsers();
    plugin.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    plugin.post(
      '/v1/email/reports',
      {
        bodyLimit: services.config.reportsMaxUploadBytes,
        config: { access: ACCESS },
        schema: {
          tags: ['email'],
          operationId: 'uploadEmailReport',
          examples: uploadExample,
          summary:
            'Store one DMARC aggregate, DMARC failure or SMTP TLS report: 201 when new, 200 with duplicate:true when this owner stored it before.',
          description: `The body is the report as received: XML (RFC 7489 or RFC 9990), JSON (RFC 8460), gzip or zip of either, or the whole email carrying one (a failure report's message/feedback-report part, or a plain-text failure report stating Sender IP Address and Sender Domain). Content-Type one of ${ACCEPTED_TYPES.join(', ')}, or none; the bytes decide the format. An unreadable report is 400 INVALID_REPORT with the reason and meta.rejected_id, and kept (GET /v1/email/reports/rejected); past NETREP_REPORTS_MAX_UPLOAD_BYTES, or inflating past NETREP_REPORTS_MAX_DECODED_BYTES, 413 PAYLOAD_TOO_LARGE.`,
          response: {
            200: envelope(Stored),
            201: envelope(Stored),
            ...errorResponses('INVALID_REPORT', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'),
          },
        },
      },
      async (request, reply) => {
        const type = mediaType(request.headers['content-type']);
        if (type !== null && !(ACCEPTED_TYPES as readonly string[]).includes(type))
          throw new AppError(
            'UNSUPPORTED_MEDIA_TYPE',
            `content type must be one of ${ACCEPTED_TYPES.join(', ')}${type === FORM ? CURL_HINT : ''}`,
          );
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const ownerId = request.principal?.ownerId as number;
        const stored = await reports.ingest(ownerId, body, type);
        reply.code(stored.duplicate ? 200 : 201);
        return { data: stored };
      },
    );
  });
}

const FORM = 'application/x-www-form-urlencoded';
/** curl's -d and --data-binary send FORM unless told otherwise: the likeliest way to meet the 415. */
const CURL_HINT =
  " (curl's --data-binary sends application/x-www-form-urlencoded unless told otherwise: add -H 'Content-Type: application/octet-stream')";

function readRoutes(app: HttpApp, services: HttpServices): void {
  const { reports } = services;
  app.get(
    '/v1/email/reports',
    listSchema({
      operationId: 'listEmailReports',
      examples: listExample,
      summary: 'The reports this account stored, newest first, without their rows.',
      response: envelope(Type.Object({ reports: Type.Array(ReportSummary), ...PageCounts })),
    }),
    async (request) => {
      const { limit, offset } = request.query;
      const page = await reports.list(request.principal?.ownerId as number, limit, offset);
      return { data: { reports: page.items, total: page.total, limit, offset } };
    },
  );

  app.get(
    '/v1/email/reports/rejected',
    listSchema({
      operationId: 'listRejectedEmailReports',
      examples: rejectedExample,
      summary:
        'Uploads this account sent that could not be stored, newest first, with the reason and the first 256 KiB.',
      response: envelope(Type.Object({ rejected: Type.Array(RejectedReport), ...PageCounts })),
    }),
    async (request) => {
      const { limit, offset } = request.query;
      const page = await reports.rejections(request.principal?.ownerId as number, limit, offset);
      return { data: { rejected: page.items, total: page.total, limit, offset } };
    },
  );

  app.get(
    '/v1/email/reports/:id',
    {
      config: { access: ACCESS },
      schema: {
        tags: ['email'],
        operationId: 'getEmailReport',
        examples: getExample,
        summary:
          'One stored report with every row read from it; 404 NOT_FOUND when this account has none by that id.',
        params: Type.Object({
          id: Type.String({ pattern: '^[0-9]{1,15}$', description: 'Stored report id.' }),
        }),
        response: { 200: envelope(ReportAnswer), ...errorResponses('NOT_FOUND') },
      },
    },
    async (request) => {
      const report = await reports.get(request.principal?.ownerId as number, Number(request.params.id));
      if (!report) throw new AppError('NOT_FOUND', `no report ${request.params.id}`);
      return { data: report };
    },
  );
}
