/**
 * `netrep lookup --extended` in the table and csv formats (issue 36 item 5): the columns the
 * extended answer adds. json needs nothing here: each line is the extended body as
 * GET /v1/ip/{ip}?extended=true sends it. The list commands do no DNS, so `hostname` stays empty.
 */
import type { IpAnswerExtended } from '../intel/index.ts';

/** After the plain columns, in this order (docs/operations.md lists them). */
export const EXTENDED_CSV_COLUMNS = [
  'organization',
  'provider',
  'hostname',
  'rpki_status',
  'geo_country',
  'geo_region',
  'geo_city',
  'latitude',
  'longitude',
  'timezone',
  'geo_primary_country',
  'geo_agreement',
  'geo_stability',
  'ownership_changes',
  'provider_drop',
  'provider_edrop',
  'uce_level1',
  'uce_level2',
  'uce_level3',
  'crawler',
  'proxy_anonymity',
] as const;

export function extendedCsvValues(a: IpAnswerExtended): unknown[] {
  const g = a.geolocation;
  const c = a.geo_consensus;
  const r = a.asn_reputation;
  return [
    a.organization,
    a.provider,
    a.hostname,
    a.rpki_status,
    g?.country_code,
    g?.region,
    g?.city,
    g?.latitude,
    g?.longitude,
    g?.timezone,
    c?.primary_country,
    c?.agreement,
    a.geo_stability?.level,
    a.ownership_timeline?.length,
    r?.provider_drop,
    r?.provider_edrop,
    r?.uce_level1,
    r?.uce_level2,
    r?.uce_level3,
    a.crawler?.name,
    a.proxy?.anonymity,
  ];
}

export const EXTENDED_TABLE_HEAD = ['PLACE', 'RPKI', 'REPUTATION'];

const LIST_WORDS = [
  ['provider_drop', 'drop'],
  ['provider_edrop', 'edrop'],
  ['uce_level1', 'uce1'],
  ['uce_level2', 'uce2'],
  ['uce_level3', 'uce3'],
] as const;

/** City and country as DB-IP places it, RPKI status, the reputation lists that name it. */
export function extendedTableCells(a: IpAnswerExtended | null): string[] {
  if (!a || a.bogon) return ['-', '-', '-'];
  const g = a.geolocation;
  const place = g ? [g.city, g.country_code].filter(Boolean).join(', ') : '';
  const r = a.asn_reputation;
  const lists = LIST_WORDS.filter(([key]) => r?.[key] === true).map(([, word]) => word);
  return [place || '-', a.rpki_status ?? '-', lists.join(',') || '-'];
}
