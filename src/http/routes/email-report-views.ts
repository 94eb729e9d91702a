/**
 * Per-domain views of the caller's reports (issue #38 item 2): the domains reported on, a
 * domain's DMARC summary, its sending sources with netrep's intel and sending reputation (JSON
 * and CSV), failure samples and TLS failures. Owner-scoped: another owner's reports never count;
 * a domain with none answers empty views (200), not 404.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import {
  DomainFailures,
  DomainSources,
  DomainSummary,
  DomainTls,
  MAX_PERIOD_DAYS,
  ReportDomain,
  type ReportViews,
  sourcesCsv,
  viewDomain,
} from '../../reports/index.ts';
import type { Access, HttpApp, HttpServices } from '../context.ts';
import {
  domainFailuresExample,
  domainSourcesCsvExample,
  domainSourcesExample,
  domainSummaryExample,
  domainTlsExample,
  reportDomainsExample,
} from '../examples/email-report-views.ts';
import type { OperationExamples } from '../openapi.ts';
import { httpReportViews } from '../report-views.ts';
import { envelope, errorResponses } from '../schemas.ts';
import { datasetMeta } from '../serving-intel.ts';

const ACCESS: Access = { kind: 'key', permission: 'email:read' };
const BASE = '/v1/email/reports/domains';

const DomainParam = Type.Object({
  domain: Type.String({
    minLength: 1,
    maxLength: 254,
    description: 'The domain reported on (case-insensitive; a trailing dot is dropped).',
  }),
});

const Day = (what: string) =>
  Type.Optional(Type.String({ maxLength: 10, description: `${what} (YYYY-MM-DD, UTC)` }));
const PeriodQuery = {
  from: Day(`First day. Default: 29 days before \`to\`; the period is at most ${MAX_PERIOD_DAYS} days`),
  to: Day('Last day, inclusive. Default: the UTC day the latest report of the domain begins'),
};
const limit = (max: number, description = `Page size, 1-${max}`) =>
  Type.Integer({ minimum: 1, maximum: max, default: 50, description });
const offset = Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: 'Rows to skip' });

/** Sources for the page's reputation are assessed together: at most this many addresses a page. */
const SOURCES_MAX = 500;
const SourcesQuery = Type.Object({
  ...PeriodQuery,
  group: Type.Union([Type.Literal('ip'), Type.Literal('organization')], {
    default: 'ip',
    description: 'ip: one row per sending address; organization: one per ASN (its organisation)',
  }),
  limit: limit(SOURCES_MAX),
  offset,
});

/** A view route of one domain: its access, tag, parameters and one answer. */
function view<Q extends TSchema, R extends TSchema>(o: {
  operationId: string;
  examples: OperationExamples;
  summary: string;
  querystring: Q;
  response: R;
  /** The sources views read sending reputation, which answers 503 when its evidence cannot be read. */
  reputation?: boolean;
}) {
  return {
    config: { access: ACCESS },
    schema: {
      tags: ['email'],
      operationId: o.operationId,
      examples: o.examples,
      summary: o.summary,
      params: DomainParam,
      querystring: o.querystring,
      response: {
        200: o.response,
        ...errorResponses('INVALID_DOMAIN', ...(o.reputation ? (['EVIDENCE_UNAVAILABLE'] as const) : [])),
      },
    },
  };
}

export function emailReportViewRoutes(app: HttpApp, services: HttpServices): void {
  const views = httpReportViews(services);
  domainRoutes(app, views);
  sourceRoutes(app, views, services);
}

const owner = (request: { principal: { ownerId: number | null } | null }) =>
  request.principal?.ownerId as number;

/** The domains list, a domain's summary, failure samples and TLS failures. */
function domainRoutes(app: HttpApp, views: ReportViews): void {
  app.get(
    BASE,
    {
      config: { access: ACCESS },
      schema: {
        tags: ['email'],
        operationId: 'listEmailReportDomains',
        examples: reportDomainsExample,
        summary:
          'The domains this account has reports for, by name: report counts by kind, messages, DMARC pass rate, first and last period.',
        querystring: Type.Object({ limit: limit(1000), offset }),
        response: {
          200: envelope(
            Type.Object({
              domains: Type.Array(ReportDomain),
              total: Type.Integer(),
              limit: Type.Integer(),
              offset: Type.Integer(),
            }),
          ),
        },
      },
    },
    async (request) => {
      const { limit: l, offset: o } = request.query;
      const page = await views.domains(owner(request), l, o);
      return { data: { ...page, limit: l, offset: o } };
    },
  );

  app.get(
    `${BASE}/:domain/summary`,
    view({
      operationId: 'getEmailReportDomainSummary',
      examples: domainSummaryExample,
      summary:
        'A domain’s DMARC aggregate summary over a period: messages, DMARC/SPF/DKIM aligned passes, dispositions, overrides by reason, policies seen, reporters, and a daily series.',
      querystring: Type.Object(PeriodQuery),
      response: envelope(DomainSummary),
    }),
    async (request) => ({
      data: await views.summary(owner(request), viewDomain(request.params.domain), request.query),
    }),
  );

  app.get(
    `${BASE}/:domain/failures`,
    view({
      operationId: 'listEmailReportDomainFailures',
      examples: domainFailuresExample,
      summary:
        'The domain’s DMARC failure report samples, newest first; from/to filter on the day netrep received them.',
      querystring: Type.Object({ ...PeriodQuery, limit: limit(1000), offset }),
      response: envelope(DomainFailures),
    }),
    async (request) => ({
      data: await views.failures(owner(request), viewDomain(request.params.domain), request.query),
    }),
  );

  app.get(
    `${BASE}/:domain/tls`,
    view({
      operationId: 'getEmailReportDomainTls',
      examples: domainTlsExample,
      summary:
        'SMTP TLS reports for the domain’s policies over a period: session totals per policy and failures by receiving MTA and result type.',
      querystring: Type.Object(PeriodQuery),
      response: envelope(DomainTls),
    }),
    async (request) => ({
      data: await views.tls(owner(request), viewDomain(request.params.domain), request.query),
    }),
  );
}

/** The sources view, as JSON and as CSV. */
function sourceRoutes(app: HttpApp, views: ReportViews, services: HttpServices): void {
  app.get(
    `${BASE}/:domain/sources`,
    view({
      operationId: 'listEmailReportDomainSources',
      reputation: true,
      examples: domainSourcesExample,
      summary:
        'Who sends as the domain: sources by IP or by organisation (ASN), most messages first, with DMARC results, netrep’s ASN, country, connection type, cloud and threat data, and the sending reputation.',
      querystring: SourcesQuery,
      response: envelope(DomainSources),
    }),
    async (request) => ({
      data: await views.sources(owner(request), viewDomain(request.params.domain), request.query),
      meta: datasetMeta(services),
    }),
  );

  const csv = view({
    operationId: 'exportEmailReportDomainSources',
    reputation: true,
    examples: domainSourcesCsvExample,
    summary:
      'The sources view as CSV (RFC 4180, a header line; cells that start with = + - @ get a leading apostrophe): the same rows, page and parameters.',
    querystring: SourcesQuery,
    response: Type.String({ description: 'The sources, one line each after the header' }),
  });
  app.get(
    `${BASE}/:domain/sources.csv`,
    {
      config: { access: ACCESS, envelope: false },
      schema: { ...csv.schema, produces: ['text/csv'] },
    },
    async (request, reply) => {
      const domain = viewDomain(request.params.domain);
      const answer = await views.sources(owner(request), domain, request.query);
      reply.header(
        'content-disposition',
        `attachment; filename="${domain}-sources-${answer.period.from}-${answer.period.to}.csv"`,
      );
      return reply.type('text/csv; charset=utf-8; header=present').send(sourcesCsv(answer));
    },
  );
}
