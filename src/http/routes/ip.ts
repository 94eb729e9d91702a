/**
 * IP intelligence (spec §2.2, §4; CONTRACT §1): the keyed lookup with its answer cache, the
 * batch lookup, the anonymous extended lookup and the caller's own address.
 */
import { Type } from '@sinclair/typebox';
import { AppError } from '../../core/errors.ts';
import { type ParsedIp, parseIp } from '../../core/ip.ts';
import { IpAnswer, IpAnswerExtended } from '../../intel/schemas.ts';
import type { HttpApp, HttpServices } from '../context.ts';
import {
  getMyIpExample,
  lookupIpBatchExample,
  lookupIpExample,
  lookupIpPublicExample,
} from '../examples/ip.ts';
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

const BatchAnswer = Type.Pick(IpAnswer, ['ip', 'prefix', 'asn', 'asn_name', 'country', 'netrep', 'threat']);

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

export function ipRoutes(app: HttpApp, services: HttpServices): void {
  const runtime = services.intel;

  app.get(
    '/v1/ip/:ip',
    {
      config: { access: { kind: 'key', permission: 'ip:read' } },
      schema: {
        tags: ['ip'],
        operationId: 'lookupIp',
        examples: lookupIpExample,
        summary: 'IP lookup: prefix, ASN, country, RIR, connection type, netrep flags and threat score.',
        params: IpParam,
        response: { 200: envelope(IpAnswer), ...errorResponses('INVALID_IP', 'NOT_FOUND', 'NOT_READY') },
      },
    },
    async (request, reply) => {
      const ip = parseIpOrThrow(request.params.ip);
      servingIntel(runtime);
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
        summary: 'Batch IP lookup: maps each normalized IP to its answer, or null when no record covers it.',
        body: BatchBody,
        response: {
          200: envelope(Type.Record(Type.String(), Type.Union([BatchAnswer, Type.Null()]))),
          ...errorResponses('INVALID_IP', 'TOO_MANY_IPS', 'NOT_READY'),
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
      const data: Record<string, IpAnswer | null> = {};
      for (const ip of parsed) if (!(ip.address in data)) data[ip.address] = intel.lookup(ip);
      return { data, meta: { dataset_version: intel.datasetVersion } };
    },
  );

  app.get(
    '/v1/public/ip/:ip',
    {
      config: { access: { kind: 'public', bucket: 'public' } },
      schema: {
        tags: ['ip', 'public'],
        operationId: 'lookupIpPublic',
        examples: lookupIpPublicExample,
        summary:
          'Anonymous IP intelligence: the lookup plus geolocation, geo consensus and stability, ownership timeline, RPKI, ASN reputation and PTR hostname.',
        params: IpParam,
        response: {
          200: envelope(IpAnswerExtended),
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
      return { data: answer, meta };
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
