/** ASN information, search and statistics (spec §2.3, §4), keyed and anonymous. */
import { Type } from '@sinclair/typebox';
import { AppError } from '../../core/errors.ts';
import { AsnInfo, AsnReputation, AsnSearchResult, AsnStats } from '../../intel/schemas.ts';
import type { HttpApp, HttpServices } from '../context.ts';
import {
  getAsnExample,
  getAsnStatsExample,
  getPublicAsnExample,
  searchAsnsExample,
} from '../examples/asn.ts';
import { envelope, errorResponses } from '../schemas.ts';
import { servingIntel } from '../serving-intel.ts';

const AsnParam = Type.Object({
  asn: Type.String({ maxLength: 40, description: 'ASN 1-4294967295, optionally written AS15169' }),
});

const AsnQuery = Type.Object({
  include_prefixes: Type.Boolean({ default: false, description: 'Add prefixes and total_prefixes' }),
  prefix_limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Prefixes returned' }),
});

const SearchQuery = Type.Object({
  q: Type.String({ minLength: 2, maxLength: 200, description: 'Name words or an ASN (15169 or AS15169)' }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
});

/** The ASN of a path parameter: digits (optionally after AS), 1-4294967295; else INVALID_ASN. */
function parseAsn(raw: string): number {
  const m = /^(?:AS)?(\d{1,10})$/i.exec(raw.trim());
  const n = m ? Number(m[1]) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > 4294967295) {
    throw new AppError('INVALID_ASN', `invalid ASN: ${JSON.stringify(raw.slice(0, 40))}`);
  }
  return n;
}

export function asnRoutes(app: HttpApp, services: HttpServices): void {
  const runtime = services.intel;

  // Registered before /v1/asn/:asn for readers; the router prefers static segments anyway.
  app.get(
    '/v1/asn/search',
    {
      config: { access: { kind: 'key', permission: 'asn:read' } },
      schema: {
        tags: ['asn'],
        operationId: 'searchAsns',
        examples: searchAsnsExample,
        summary: 'Search ASNs by number or organization name (exact, then prefix, then substring).',
        querystring: SearchQuery,
        response: { 200: envelope(AsnSearchResult), ...errorResponses('NOT_READY') },
      },
    },
    async (request) => {
      const { q, limit } = request.query;
      if (q.trim().length < 2)
        throw new AppError('INVALID_PARAMETER', 'query parameter q needs at least 2 characters');
      const intel = servingIntel(runtime);
      return { data: intel.searchAsn(q, limit), meta: { dataset_version: intel.datasetVersion } };
    },
  );

  app.get(
    '/v1/asn/stats',
    {
      config: { access: { kind: 'key', permission: 'asn:read' } },
      schema: {
        tags: ['asn'],
        operationId: 'getAsnStats',
        examples: getAsnStatsExample,
        summary: 'Number of ASNs in the dataset, in total and per registry.',
        response: { 200: envelope(AsnStats), ...errorResponses('NOT_READY') },
      },
    },
    async () => {
      const intel = servingIntel(runtime);
      return { data: intel.asnStats(), meta: { dataset_version: intel.datasetVersion } };
    },
  );

  app.get(
    '/v1/asn/:asn',
    {
      config: { access: { kind: 'key', permission: 'asn:read' } },
      schema: {
        tags: ['asn'],
        operationId: 'getAsn',
        examples: getAsnExample,
        summary: 'ASN information; with include_prefixes, its prefixes (up to prefix_limit) and their count.',
        params: AsnParam,
        querystring: AsnQuery,
        response: { 200: envelope(AsnInfo), ...errorResponses('INVALID_ASN', 'NOT_FOUND', 'NOT_READY') },
      },
    },
    async (request) => {
      const asn = parseAsn(request.params.asn);
      const q = request.query;
      const intel = servingIntel(runtime);
      const meta = { dataset_version: intel.datasetVersion };
      const info = intel.asn(asn, { includePrefixes: q.include_prefixes, prefixLimit: q.prefix_limit });
      if (!info) throw new AppError('NOT_FOUND', 'ASN not found', { meta });
      return { data: info, meta };
    },
  );

  app.get(
    '/v1/public/asn/:asn',
    {
      config: { access: { kind: 'public', bucket: 'public' } },
      schema: {
        tags: ['asn', 'public'],
        operationId: 'getPublicAsn',
        examples: getPublicAsnExample,
        summary: 'Anonymous ASN information with its reputation summary (DROP, UCEPROTECT).',
        params: AsnParam,
        response: {
          200: envelope(Type.Composite([AsnInfo, Type.Object({ asn_reputation: AsnReputation })])),
          ...errorResponses('INVALID_ASN', 'NOT_FOUND', 'NOT_READY'),
        },
      },
    },
    async (request) => {
      const asn = parseAsn(request.params.asn);
      const intel = servingIntel(runtime);
      const meta = { dataset_version: intel.datasetVersion };
      const info = intel.asn(asn);
      const reputation = intel.asnReputation(asn);
      if (!info || !reputation) throw new AppError('NOT_FOUND', 'ASN not found', { meta });
      return { data: { ...info, asn_reputation: reputation }, meta };
    },
  );
}
