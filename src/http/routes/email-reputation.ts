/**
 * Sending-IP reputation, subnet neighbours, warm-up and pool classification (spec §2.5, §2.6,
 * §4; CONTRACT §7). Reputation single and batch are anonymous (60/min per client IP, shared);
 * warm-up adds 60/min per key; pool classification needs the telemetry_ingest feature. Each
 * answer reads dataset facts (datacenter, geo changes) and carries meta.dataset_version.
 */
import { Type } from '@sinclair/typebox';
import {
  BatchReputationItem,
  ReputationData,
  reputationDataJson,
  SubnetSummary,
} from '../../reputation/index.ts';
import { PoolClassificationItem, WarmupData } from '../../warmup/index.ts';
import type { HttpApp, HttpServices } from '../context.ts';
import {
  classifyPoolExample,
  getEmailReputationBatchExample,
  getEmailReputationExample,
  getIpNeighborsExample,
  getWarmupExample,
} from '../examples/email.ts';
import { envelope, errorResponses, IpParam } from '../schemas.ts';
import { datasetMeta } from '../serving-intel.ts';

const IpList = (max: number) =>
  Type.Object({
    ips: Type.Array(Type.String({ description: 'IPv4 or IPv6 address' }), {
      minItems: 1,
      description: `1-${max} addresses; more: 400 TOO_MANY_IPS; an invalid entry: 400 INVALID_IP naming it`,
    }),
  });

export function emailReputationRoutes(app: HttpApp, services: HttpServices): void {
  const { reputation, warmup } = services;

  app.get(
    '/v1/email/ip/:ip/reputation',
    {
      config: { access: { kind: 'public', bucket: 'reputation' } },
      schema: {
        tags: ['email'],
        operationId: 'getEmailReputation',
        examples: getEmailReputationExample,
        summary: 'Sending reputation of an IP: score, level, factors, 30-day history, /24, listing, FCrDNS.',
        params: IpParam,
        response: {
          // Written by hand (answer-json.ts): the same bytes as the schema's serializer, faster.
          200: envelope(ReputationData, reputationDataJson),
          ...errorResponses('INVALID_IP', 'EVIDENCE_UNAVAILABLE'),
        },
      },
    },
    async (request) => ({ data: await reputation.forIp(request.params.ip), meta: datasetMeta(services) }),
  );

  app.post(
    '/v1/email/reputation/batch',
    {
      config: { access: { kind: 'public', bucket: 'reputation' } },
      schema: {
        tags: ['email'],
        operationId: 'getEmailReputationBatch',
        examples: getEmailReputationBatchExample,
        summary: 'Reputation score and level of 1-100 public IPs (duplicates answered once).',
        body: IpList(100),
        response: {
          200: envelope(Type.Array(BatchReputationItem)),
          ...errorResponses('INVALID_IP', 'TOO_MANY_IPS', 'EVIDENCE_UNAVAILABLE'),
        },
      },
    },
    async (request) => ({ data: await reputation.batch(request.body.ips), meta: datasetMeta(services) }),
  );

  app.get(
    '/v1/email/ip/:ip/neighbors',
    {
      config: { access: { kind: 'key', permission: 'email:read' } },
      schema: {
        tags: ['email'],
        operationId: 'getIpNeighbors',
        examples: getIpNeighborsExample,
        summary: 'Summary of the /24 around a public IPv4 address: listings, scores, contamination.',
        params: IpParam,
        response: { 200: envelope(SubnetSummary), ...errorResponses('INVALID_IP', 'EVIDENCE_UNAVAILABLE') },
      },
    },
    async (request) => ({
      data: await reputation.neighbors(request.params.ip),
      meta: datasetMeta(services),
    }),
  );

  app.get(
    '/v1/email/ip/:ip/warmup',
    {
      config: { access: { kind: 'key', permission: 'email:read', minuteBucket: 'warmup' } },
      schema: {
        tags: ['email'],
        operationId: 'getWarmup',
        examples: getWarmupExample,
        summary: 'Warm-up status, recommended daily volume, auto-pause advice and the next milestone.',
        params: IpParam,
        response: { 200: envelope(WarmupData), ...errorResponses('INVALID_IP', 'EVIDENCE_UNAVAILABLE') },
      },
    },
    async (request) => ({ data: await warmup.forIp(request.params.ip), meta: datasetMeta(services) }),
  );

  app.post(
    '/v1/email/pool/classify',
    {
      config: { access: { kind: 'key', permission: 'email:read', feature: 'telemetry_ingest' } },
      schema: {
        operationId: 'classifyPool',
        examples: classifyPoolExample,
        tags: ['email'],
        summary:
          'Pool tier of 1-50 IPs, persisted per owner; probation -> seasoned emits a graduation event.',
        body: IpList(50),
        response: {
          200: envelope(Type.Array(PoolClassificationItem)),
          ...errorResponses('INVALID_IP', 'TOO_MANY_IPS', 'EVIDENCE_UNAVAILABLE'),
        },
      },
    },
    async (request) => {
      const ownerId = request.principal?.ownerId ?? 0;
      return { data: await warmup.classify(ownerId, request.body.ips), meta: datasetMeta(services) };
    },
  );
}
