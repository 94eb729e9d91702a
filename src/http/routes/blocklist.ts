import { Type } from '@sinclair/typebox';
import {
  BatchCheckAnswer,
  CheckAnswer,
  checkAnswer,
  eventAnswer,
  RecentAnswer,
  StatsAnswer,
  statsAnswer,
} from '../../blocklist/index.ts';
import { AppError } from '../../core/errors.ts';
import { parseIp } from '../../core/ip.ts';
import type { HttpApp, HttpServices } from '../context.ts';
import {
  checkBlocklistBatchExample,
  checkBlocklistExample,
  getBlocklistStatsExample,
  listBlocklistEventsExample,
} from '../examples/blocklist.ts';
import { envelope, errorResponses, IpParam } from '../schemas.ts';

/** Spec §8: blocklist batch 100 IPs. */
const MAX_BATCH = 100;

function normalized(ip: string): string {
  const parsed = parseIp(ip);
  if (!parsed) throw new AppError('INVALID_IP', `invalid IP address: ${ip.slice(0, 64)}`);
  return parsed.address;
}

export function blocklistRoutes(app: HttpApp, services: HttpServices): void {
  const { blocklist } = services;
  const single = async (request: { params: IpParam }) => {
    const ip = normalized(request.params.ip);
    return { data: checkAnswer(ip, await blocklist.check(ip)) };
  };
  const singleSchema = (operationId: string, summary: string) => ({
    operationId,
    examples: checkBlocklistExample,
    tags: ['blocklist'],
    summary,
    params: IpParam,
    response: { 200: envelope(CheckAnswer), ...errorResponses('INVALID_IP', 'STORE_UNAVAILABLE') },
  });

  app.get(
    '/v1/public/blocklist/ip/:ip',
    {
      config: { access: { kind: 'public', bucket: 'public' } },
      schema: singleSchema(
        'checkBlocklistPublic',
        'Is this address on the blocklist? (anonymous, 60/min per client IP)',
      ),
    },
    single,
  );

  app.get(
    '/v1/blocklist/ip/:ip',
    {
      config: { access: { kind: 'key', permission: 'blocklist:read' } },
      schema: singleSchema('checkBlocklist', 'Is this address on the blocklist?'),
    },
    single,
  );

  app.post(
    '/v1/blocklist/check',
    {
      config: { access: { kind: 'key', permission: 'blocklist:read' } },
      schema: {
        tags: ['blocklist'],
        operationId: 'checkBlocklistBatch',
        examples: checkBlocklistBatchExample,
        summary: 'Blocklist membership of 1-100 addresses, in request order.',
        body: Type.Object(
          {
            ips: Type.Array(Type.String({ description: 'IPv4 or IPv6 address' }), {
              minItems: 1,
              maxItems: MAX_BATCH,
            }),
          },
          { additionalProperties: false },
        ),
        response: { 200: envelope(BatchCheckAnswer), ...errorResponses('INVALID_IP', 'TOO_MANY_IPS') },
      },
    },
    async (request) => {
      const ips = request.body.ips.map(normalized);
      const listings = await blocklist.checkMany(ips);
      return { data: ips.map((ip) => checkAnswer(ip, listings.get(ip))) };
    },
  );

  app.get(
    '/v1/blocklist/stats',
    {
      config: { access: { kind: 'key', permission: 'blocklist:read' } },
      schema: {
        tags: ['blocklist'],
        operationId: 'getBlocklistStats',
        examples: getBlocklistStatsExample,
        summary: 'Active listings by type, listings and delistings in the last 24 hours.',
        response: { 200: envelope(StatsAnswer) },
      },
    },
    async () => ({ data: statsAnswer(await blocklist.stats()) }),
  );

  app.get(
    '/v1/blocklist/recent',
    {
      config: { access: { kind: 'key', permission: 'blocklist:read' } },
      schema: {
        tags: ['blocklist'],
        operationId: 'listBlocklistEvents',
        examples: listBlocklistEventsExample,
        summary: 'Listing and delisting events, newest first.',
        querystring: Type.Object({
          limit: Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'Page size, 1-100' }),
          offset: Type.Integer({
            minimum: 0,
            maximum: 1_000_000_000,
            default: 0,
            description: 'Events to skip',
          }),
        }),
        response: { 200: envelope(RecentAnswer) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const events = (await blocklist.recent({ limit, offset })).map(eventAnswer);
      return { data: { events, count: events.length, limit, offset } };
    },
  );
}
