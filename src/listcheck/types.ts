/** The answer shapes of the many-blocklists check (issue 36 item 6) as TypeBox schemas. */
import { type Static, Type } from '@sinclair/typebox';
import { CheckAnswer } from '../blocklist/index.ts';

export const ZONE_STATUSES = ['listed', 'not_listed', 'refused', 'unavailable', 'not_checked'] as const;
export type ZoneStatus = (typeof ZONE_STATUSES)[number];

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const count = (status: ZoneStatus) =>
  Type.Integer({ minimum: 0, description: `Lists whose status is ${status}` });

export const ZoneAnswer = Type.Object({
  zone: Type.String({ description: 'The DNSBL zone asked, e.g. zen.spamhaus.org' }),
  name: Type.String({ description: 'The list’s name' }),
  status: Type.Union(
    ZONE_STATUSES.map((s) => Type.Literal(s)),
    {
      description:
        'listed; not_listed; refused (the list answered with a refusal code such as Spamhaus 127.255.255.254 "query through a public resolver": no verdict); unavailable (no answer in time, or the zone failed its RFC 5782 test points); not_checked (the list does not cover this address family)',
    },
  ),
  return_codes: Type.Array(Type.String(), {
    description: 'The A records the list answered (its return codes), sorted; empty unless listed or refused',
  }),
  reason: Nullable(Type.String({ description: 'The list’s TXT record for the address (why it is listed)' })),
  detail: Nullable(
    Type.String({ description: 'Why the answer is refused, unavailable or not checked; null otherwise' }),
  ),
  delist_url: Nullable(
    Type.String({ description: 'Where the list explains a listing and takes removal requests' }),
  ),
  checked_at: Type.String({ description: 'When the list answered (RFC 3339; earlier than now when cached)' }),
  cached: Type.Boolean({ description: 'True when the answer came from this instance’s cache' }),
});
export type ZoneAnswer = Static<typeof ZoneAnswer>;

export const BlocklistsAnswer = Type.Object({
  ip: Type.String({ description: 'The address, normalized' }),
  netrep: Type.Object(
    {
      zone: Type.String({ description: 'This instance’s own DNSBL zone (NETREP_DNSBL_ZONE)' }),
      ...CheckAnswer.properties,
    },
    { description: 'This instance’s own blocklist, as GET /v1/public/blocklist/ip/{ip} answers' },
  ),
  zones: Type.Array(ZoneAnswer, {
    description: 'One answer per configured public list (NETREP_DNSBL_CHECK_ZONES), in that order',
  }),
  summary: Type.Object(
    {
      listed: count('listed'),
      not_listed: count('not_listed'),
      refused: count('refused'),
      unavailable: count('unavailable'),
      not_checked: count('not_checked'),
    },
    { description: 'How many public lists answered each status (the own zone not counted)' },
  ),
});
export type BlocklistsAnswer = Static<typeof BlocklistsAnswer>;
