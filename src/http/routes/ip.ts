/**
 * IP intelligence (spec §2.2, §4; CONTRACT §1): the keyed lookup with its answer cache, the
 * batch lookup, the anonymous extended lookup and the caller's own address. A keyed lookup or
 * batch with `extended=true` answers the anonymous lookup's fields too (issue 36 item 5), one
 * request of the key's quota like any other (CONTRACT §3: keyed routes count requests).
 */
import { type Static, Type } from '@sinclair/typebox';
import { AppError } from '../../core/errors.ts';
import { type ParsedIp, parseIp } from '../../core/ip.ts';
import { IpAnswer, IpAnswerExtended } from '../../intel/schemas.ts';
import { ScanFields } from '../../scan/schemas.ts';
import type { HttpApp, HttpServices } from '../context.ts';
import {
  getMyIpExample,
  lookupIpBatchExample,
  lookupIpExample,
  lookupIpPublicExample,
} from '../examples/ip.ts';
import { IpAnswerKeyed, IpAnswerPublic } from '../ip-answers.ts';
import { scanQuota } from '../scan-quota.ts';
import { envelope, errorResponses, IpParam } from '../schemas.ts';
import { servingIntel } from '../serving-intel.ts';

const BATCH_MAX = 1000;

const BatchBody = Type.Object(
  {
    ips: Type.Array(Type.String({ description: 'IPv4 or IPv6 address' }), {
      minItems: 1,
      maxItems: BATCH_MAX,
      description:
        '1-1000 addresses, capped by the key tier batch size (free 10, starter 100, pro 500, enterprise 1000); ' +
        'over the cap: 400 TOO_MANY_IPS naming it; an invalid entry: 400 INVALID_IP naming it',
    }),
  },
  { additionalProperties: false },
);

const BATCH_FIELDS = ['ip', 'prefix', 'asn', 'asn_name', 'country', 'netrep', 'threat'] as const;

/** The plain batch answer; with extended=true every other field of the extended answer too. */
const BatchAnswer = Type.Composite([
  Type.Pick(IpAnswer, BATCH_FIELDS),
  Type.Partial(Type.Omit(IpAnswerExtended, BATCH_FIELDS)),
  Type.Partial(ScanFields),
]);

type BatchAnswer = Static<typeof BatchAnswer>;

/** The plain batch subset (the schema would also write rir, connection_type and bogon). */
function batchAnswerOf(a: IpAnswer | null): BatchAnswer | null {
  return (
    a && {
      ip: a.ip,
      prefix: a.prefix,
      asn: a.asn,
      asn_name: a.asn_name,
      country: a.country,
      netrep: a.netrep,
      threat: a.threat,
    }
  );
}

const ExtendedQuery = Type.Object({
  extended: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        'true: add the fields GET /v1/public/ip/{ip} answers (organization, provider, hostname, rpki_status, geolocation, geo_consensus, geo_stability, ownership_timeline, asn_reputation, crawler, proxy, provenance, and the service scan: scan, service_title, service_server, tls_organization); still one request of the daily quota. Only true or false',
    }),
  ),
});

/** Hostnames (PTR, 1 s deadline each) of a batch looked up this many at a time. */
const EXTENDED_LANES = 16;

async function lookupAllExtended(
  intel: ReturnType<typeof servingIntel>,
  scan: HttpServices['scan'],
  ips: ParsedIp[],
): Promise<Record<string, IpAnswerKeyed | null>> {
  const data: Record<string, IpAnswerKeyed | null> = {};
  const unique = [...new Map(ips.map((ip) => [ip.address, ip])).values()];
  for (const ip of unique) data[ip.address] = null; // keeps the order of the request
  let next = 0;
  const lane = async () => {
    for (let ip = unique[next++]; ip; ip = unique[next++]) data[ip.address] = await withScan(intel, scan, ip);
  };
  await Promise.all(Array.from({ length: Math.min(EXTENDED_LANES, unique.length) }, lane));
  return data;
}

const MyIp = Type.Object({
  ip: Type.String({ description: 'The caller address (the trusted proxy identity)' }),
  asn: Type.Union([Type.Integer(), Type.Null()]),
  asn_name: Type.Union([Type.String(), Type.Null()]),
  country: Type.Union([Type.String(), Type.Null()]),
  organization: Type.Union([Type.String(), Type.Null()]),
});

function parseIpOrThrow(raw: unknown): ParsedIp {
  const ip = parseIp(raw);
  if (!ip)
    throw new AppError('INVALID_IP', `invalid IP address: ${JSON.stringify(String(raw).slice(0, 100))}`);
  return ip;
}

/**
 * A keyed lookup queues the scan a stored result lacks with no charge beyond its own request: the
 * key is known and counted (CONTRACT §3), and NETREP_SCAN_RATE bounds the scans of every caller.
 */
const keyedMayQueue = async () => true;

/** The extended answer with the service scan's fields, or null when no record covers the address. */
async function withScan(
  intel: ReturnType<typeof servingIntel>,
  scan: HttpServices['scan'],
  ip: ParsedIp,
): Promise<IpAnswerKeyed | null> {
  const answer = await intel.lookupExtended(ip);
  return answer && { ...answer, ...(await scan.forLookup(ip, keyedMayQueue)) };
}

export function ipRoutes(app: HttpApp, services: HttpServices): void {
  keyedIpRoutes(app, services);
  publicIpRoutes(app, services);
}

/** The keyed lookup (plain or extended) and the batch. */
function keyedIpRoutes(app: HttpApp, services: HttpServices): void {
  const runtime = services.intel;
  app.get(
    '/v1/ip/:ip',
    {
      config: { access: { kind: 'key', permission: 'ip:read' } },
      schema: {
        tags: ['ip'],
        operationId: 'lookupIp',
        examples: lookupIpExample,
        summary:
          'IP lookup: prefix, ASN, country, RIR, connection type, netrep flags and threat score; with extended=true the fields of the anonymous lookup too.',
        params: IpParam,
        querystring: ExtendedQuery,
        response: {
          200: envelope(IpAnswerKeyed),
          ...errorResponses('INVALID_IP', 'INVALID_PARAMETER', 'NOT_FOUND', 'NOT_READY'),
        },
      },
    },
    async (request, reply) => {
      const ip = parseIpOrThrow(request.params.ip);
      const intel = servingIntel(runtime);
      if (request.query.extended) {
        // Not cached: the hostname and the history views are not part of the answer cache.
        const meta = { cache_status: 'MISS', dataset_version: intel.datasetVersion } as const;
        reply.header('x-cache-status', 'MISS');
        const answer = await withScan(intel, services.scan, ip);
        if (!answer) throw new AppError('NOT_FOUND', 'no data found for IP', { meta });
        return { data: answer, meta };
      }
      const r = runtime.lookupCached(ip);
      if (!r) throw new AppError('NOT_READY', 'the dataset is still being built; retry shortly');
      const cacheStatus = r.hit ? 'HIT' : 'MISS';
      reply.header('x-cache-status', cacheStatus);
      const meta = { cache_status: cacheStatus, dataset_version: r.datasetVersion } as const;
      if (!r.answer) throw new AppError('NOT_FOUND', 'no data found for IP', { meta });
      return { data: r.answer, meta };
    },
  );

  app.post(
    '/v1/ip/batch',
    {
      config: { access: { kind: 'key', permission: 'ip:read' } },
      schema: {
        tags: ['ip'],
        operationId: 'lookupIpBatch',
        examples: lookupIpBatchExample,
        summary:
          'Batch IP lookup: maps each normalized IP to its answer, or null when no record covers it; with extended=true each answer is the extended one.',
        body: BatchBody,
        querystring: ExtendedQuery,
        response: {
          200: envelope(Type.Record(Type.String(), Type.Union([BatchAnswer, Type.Null()]))),
          ...errorResponses('INVALID_IP', 'INVALID_PARAMETER', 'TOO_MANY_IPS', 'NOT_READY'),
        },
      },
    },
    async (request) => {
      const { ips } = request.body;
      const cap = Math.min(BATCH_MAX, request.principal?.tier.batchSize ?? BATCH_MAX);
      if (ips.length > cap) {
        throw new AppError(
          'TOO_MANY_IPS',
          `maximum ${cap} IPs per request for the ${request.principal?.tier.name ?? 'key'} tier`,
        );
      }
      const parsed = ips.map(parseIpOrThrow);
      const intel = servingIntel(runtime);
      const meta = { dataset_version: intel.datasetVersion };
      if (request.query.extended)
        return { data: await lookupAllExtended(intel, services.scan, parsed), meta };
      const data: Record<string, BatchAnswer | null> = {};
      for (const ip of parsed) if (!(ip.address in data)) data[ip.address] = batchAnswerOf(intel.lookup(ip));
      return { data, meta };
    },
  );
}

/** The anonymous twins: the extended lookup and the caller's own address. */
function publicIpRoutes(app: HttpApp, services: HttpServices): void {
  const runtime = services.intel;
  app.get(
    '/v1/public/ip/:ip',
    {
      config: { access: { kind: 'public', bucket: 'public' } },
      schema: {
        tags: ['ip', 'public'],
        operationId: 'lookupIpPublic',
        examples: lookupIpPublicExample,
        summary:
          'Anonymous IP intelligence: the lookup plus geolocation, geo consensus and stability, ownership timeline, RPKI, ASN reputation, PTR hostname and the service scan (page title, Server header, TLS organisation; NETREP_SCAN).',
        params: IpParam,
        response: {
          200: envelope(IpAnswerPublic),
          ...errorResponses('INVALID_IP', 'NOT_FOUND', 'NOT_READY'),
        },
      },
    },
    async (request) => {
      const ip = parseIpOrThrow(request.params.ip);
      const intel = servingIntel(runtime);
      const meta = { dataset_version: intel.datasetVersion };
      const answer = await intel.lookupExtended(ip);
      if (!answer) throw new AppError('NOT_FOUND', 'no data found for IP', { meta });
      const scan = await services.scan.forLookup(ip, scanQuota(services.limits, request.clientIp));
      return { data: { ...answer, ...scan }, meta };
    },
  );

  app.get(
    '/v1/public/myip',
    {
      config: { access: { kind: 'public', bucket: 'public' } },
      schema: {
        tags: ['ip', 'public'],
        operationId: 'getMyIp',
        examples: getMyIpExample,
        summary:
          "The caller's own address (socket peer, or X-Forwarded-For only through NETREP_TRUSTED_PROXIES) with its ASN and country.",
        response: { 200: envelope(MyIp), ...errorResponses('NOT_READY') },
      },
    },
    async (request) => {
      const intel = servingIntel(runtime);
      const ip = parseIp(request.clientIp);
      const answer = ip ? intel.lookup(ip) : null;
      return {
        data: {
          ip: ip?.address ?? request.clientIp,
          asn: answer?.asn ?? null,
          asn_name: answer?.asn_name ?? null,
          country: answer?.country ?? null,
          organization: answer?.asn_name ?? null,
        },
        meta: { dataset_version: intel.datasetVersion },
      };
    },
  );
}
