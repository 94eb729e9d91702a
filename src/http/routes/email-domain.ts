/**
 * Email domain authentication routes (spec §2.7, §4 rule 4, §8; CONTRACT §2, §8): the cached
 * domain DNS check, the public domain-check tool and its keyed alias, and SPF check_host().
 * An empty domain segment (`/v1/public/tools/domain-check/`) is registered explicitly so it
 * answers 400 MISSING_DOMAIN instead of 404. A check that could read none of MX, SPF and DMARC
 * answers 503 DNS_UNAVAILABLE (no grade); one that read some answers its grade with
 * `complete: false` and the `unchecked` queries (issue 31).
 */
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { AppError } from '../../core/errors.ts';
import {
  type CachedDomainCheck,
  checkDomain,
  checkSpfQuery,
  createDomainCheckCache,
  type DomainAuthResult,
  DomainAuthResultSchema,
  DomainDnsResultSchema,
  dnsUnavailable,
  SpfCheckResultSchema,
  toDomainDnsResult,
} from '../../emailauth/index.ts';
import type { Access, HttpApp, HttpServices } from '../context.ts';
import { checkSpfExample, getDomainDnsExample } from '../examples/email.ts';
import { checkDomainExample } from '../examples/tools.ts';
import { envelope, errorResponses } from '../schemas.ts';

const DomainParam = Type.Object({
  domain: Type.String({ description: 'Domain name (IDN accepted; normalized to lower-case A-labels).' }),
});
/** The hidden twins with an empty domain segment have no parameter at all. */
const NoDomainParam = Type.Object({ domain: Type.Optional(Type.String()) });

const DnsQuery = Type.Object({
  selectors: Type.Optional(
    Type.String({
      maxLength: 1000,
      description:
        'Comma-separated DKIM selectors; all are returned, found or not (at most 20). Omitted: common selectors are probed and only found ones returned.',
    }),
  ),
  refresh: Type.Optional(
    Type.Boolean({ default: false, description: 'Bypass the 24 h cache (the fresh answer is stored).' }),
  ),
});

const SpfQuery = Type.Object({
  ip: Type.String({ maxLength: 100, description: 'Client IP address (IPv4 or IPv6).' }),
  domain: Type.Optional(
    Type.String({ maxLength: 300, description: 'Domain to check; defaults to the domain of sender.' }),
  ),
  sender: Type.Optional(
    Type.String({ maxLength: 600, description: 'MAIL FROM address; defaults to postmaster@domain.' }),
  ),
  helo: Type.Optional(Type.String({ maxLength: 300, description: 'HELO/EHLO name, for the %{h} macro.' })),
});

const READ: Access = { kind: 'key', permission: 'email:read' };
const PUBLIC: Access = { kind: 'public', bucket: 'public' };

function requireDomain(params: Static<typeof NoDomainParam>): string {
  const domain = params.domain ?? '';
  if (domain.trim() === '') throw new AppError('MISSING_DOMAIN');
  return domain;
}

function cacheHeaders(reply: FastifyReply, cached: CachedDomainCheck): void {
  reply.header('x-netrep-domain-dns-cache', cached.status);
  reply.header('age', String(cached.ageSeconds));
  reply.header('cache-control', `private, max-age=${cached.maxAgeSeconds}`);
}

/** A check answer, or 503 when none of MX, SPF, DMARC could be read (no grade from nothing). */
type Gradeable = <T extends DomainAuthResult>(result: T) => T;

/** The record-level DNS routes, answered through one cache per app instance. */
function dnsRecordRoutes(app: HttpApp, services: HttpServices, gradeable: Gradeable): void {
  // One cache per app instance (spec §8: per server instance).
  const cache = createDomainCheckCache({
    dns: services.dns,
    clock: services.clock,
    mtaSts: { allowLoopback: services.config.mtaStsAllowLoopback },
  });
  const dnsSchema = {
    operationId: 'getDomainDns',
    examples: getDomainDnsExample,
    tags: ['email'],
    summary:
      'MX, SPF, DKIM and DMARC of a domain with domain_auth_score, grade and recommendations; MTA-STS, TLS-RPT and BIMI findings.',
    description:
      'Cached 24 hours per normalized domain and selector set on this instance; 30 requests/minute per key. ' +
      'Headers: X-Netrep-Domain-DNS-Cache (HIT, MISS, BYPASS), Age, Cache-Control: private, max-age=<seconds left>. ' +
      'Records that could not be checked (timeout, SERVFAIL, refused, network error) are never graded as absent: ' +
      'when some could not be read the answer has complete: false, record_status and unchecked, and is not cached; ' +
      'when none of MX, SPF and DMARC could be read the answer is 503 DNS_UNAVAILABLE naming the resolvers and the failures.',
    querystring: DnsQuery,
    response: {
      200: envelope(DomainDnsResultSchema),
      ...errorResponses('MISSING_DOMAIN', 'INVALID_DOMAIN', 'DNS_UNAVAILABLE'),
    },
  };
  const dnsRoute = {
    config: { access: { ...READ, minuteBucket: 'domain_dns' as const } },
  };
  const dnsHandler = async (
    request: { params: Static<typeof NoDomainParam>; query: Static<typeof DnsQuery> },
    reply: FastifyReply,
  ): Promise<{ data: Static<typeof DomainDnsResultSchema> }> => {
    const domain = requireDomain(request.params);
    const { query } = request;
    const cached = await cache.check(domain, {
      selectors: query.selectors?.split(',') ?? [],
      refresh: query.refresh === true,
    });
    cacheHeaders(reply, cached);
    return { data: toDomainDnsResult(gradeable(cached.result)) };
  };
  app.get(
    '/v1/email/domain/:domain/dns',
    { ...dnsRoute, schema: { ...dnsSchema, params: DomainParam } },
    dnsHandler,
  );
  app.get(
    '/v1/email/domain//dns',
    { ...dnsRoute, schema: { ...dnsSchema, params: NoDomainParam, hide: true } },
    dnsHandler,
  );
}

/** The domain check tool: the anonymous route and its key-protected alias. */
function domainToolRoutes(app: HttpApp, services: HttpServices, gradeable: Gradeable): void {
  const toolSchema = (operationId: string, summary: string) => ({
    operationId,
    examples: checkDomainExample,
    tags: ['tools'],
    summary,
    description:
      'Strict public hostname (INVALID_DOMAIN otherwise); common DKIM selectors, found ones returned. ' +
      'Also MTA-STS (the _mta-sts TXT record and the policy fetched from https://mta-sts.<domain>/.well-known/mta-sts.txt: ' +
      'public addresses only, valid certificate, no redirects, 64 KiB, 5 s), TLS-RPT (_smtp._tls) and BIMI (default._bimi), ' +
      'each with its own findings and recommendations; they earn no points. ' +
      'Records that could not be checked: complete: false with record_status and unchecked; ' +
      'none of MX, SPF and DMARC readable: 503 DNS_UNAVAILABLE.',
    response: {
      200: envelope(DomainAuthResultSchema),
      ...errorResponses('MISSING_DOMAIN', 'INVALID_DOMAIN', 'DNS_UNAVAILABLE'),
    },
  });
  const toolHandler = async (request: { params: Static<typeof NoDomainParam> }) => {
    const domain = requireDomain(request.params);
    const mtaSts = { allowLoopback: services.config.mtaStsAllowLoopback };
    return {
      data: gradeable(await checkDomain(domain, { dns: services.dns, clock: services.clock, mtaSts })),
    };
  };
  const publicSummary =
    'Domain check tool (anonymous): MX, SPF, DKIM and DMARC with score and grade; MTA-STS, TLS-RPT and BIMI findings.';
  const keyedSummary = 'Domain check tool, key-protected alias of the public route.';
  app.get(
    '/v1/public/tools/domain-check/:domain',
    {
      config: { access: PUBLIC },
      schema: { ...toolSchema('checkDomainPublic', publicSummary), params: DomainParam },
    },
    toolHandler,
  );
  app.get(
    '/v1/public/tools/domain-check/',
    {
      config: { access: PUBLIC },
      schema: { ...toolSchema('checkDomainPublic', publicSummary), params: NoDomainParam, hide: true },
    },
    toolHandler,
  );
  app.get(
    '/v1/tools/domain-check/:domain',
    { config: { access: READ }, schema: { ...toolSchema('checkDomain', keyedSummary), params: DomainParam } },
    toolHandler,
  );
  app.get(
    '/v1/tools/domain-check/',
    {
      config: { access: READ },
      schema: { ...toolSchema('checkDomain', keyedSummary), params: NoDomainParam, hide: true },
    },
    toolHandler,
  );

  app.get(
    '/v1/email/spf/check',
    {
      config: { access: READ },
      schema: {
        tags: ['email'],
        operationId: 'checkSpf',
        examples: checkSpfExample,
        summary: 'SPF check_host() (RFC 7208) for a client IP, domain and sender.',
        description:
          'Result pass, fail, softfail, neutral, none, temperror or permerror, with the deciding mechanism. ' +
          'DNS work has the 5 s deadline of the domain check.',
        querystring: SpfQuery,
        response: { 200: envelope(SpfCheckResultSchema), ...errorResponses('INVALID_IP', 'MISSING_DOMAIN') },
      },
    },
    async (request) => ({
      data: await checkSpfQuery(request.query, { dns: services.dns, clock: services.clock }),
    }),
  );
}

export function emailDomainRoutes(app: HttpApp, services: HttpServices): void {
  /** No grade from records that could not be read: none of MX, SPF, DMARC read → 503. */
  const gradeable = <T extends DomainAuthResult>(result: T): T => {
    const unavailable = dnsUnavailable(result, services.config.dnsServers);
    if (unavailable) throw unavailable;
    return result;
  };
  dnsRecordRoutes(app, services, gradeable);
  domainToolRoutes(app, services, gradeable);
}
