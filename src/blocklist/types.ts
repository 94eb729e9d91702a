import { type Static, Type } from '@sinclair/typebox';

export const LISTING_TYPES = ['spam', 'malware', 'phishing'] as const;

export const ListingType = Type.Union(
  LISTING_TYPES.map((t) => Type.Literal(t)),
  { description: 'Listing type: spam, malware or phishing' },
);
export type ListingType = Static<typeof ListingType>;

/** CONTRACT §4: default DNS return codes. */
export const DEFAULT_RETURN_CODES: Readonly<Record<ListingType, string>> = {
  spam: '127.0.0.2',
  malware: '127.0.0.3',
  phishing: '127.0.0.4',
};

/** Longest accepted listing reason; it is served in a DNS TXT string (at most 255 bytes). */
export const MAX_REASON_LENGTH = 200;

/** One active listing, as the domain sees it (epoch ms). */
export interface Listing {
  ip: string;
  family: 4 | 6;
  type: ListingType;
  reason: string;
  returnCode: string;
  listedAt: number;
  /** null: permanent. */
  expiresAt: number | null;
  updatedAt: number;
}

export type ListingAction = 'listed' | 'delisted';

/** One entry of the event log (spec §2.4 recent events). */
export interface ListingEvent {
  id: number;
  ip: string;
  action: ListingAction;
  type: ListingType;
  reason: string;
  returnCode: string;
  listedAt: number;
  expiresAt: number | null;
  /** Set on `delisted` events only. */
  delistedAt: number | null;
  performedAt: number;
  actor: string;
}

export interface BlocklistStats {
  totalActive: number;
  byType: Record<ListingType, number>;
  newListings24h: number;
  delistings24h: number;
}

export interface ListInput {
  ip: string;
  type: ListingType;
  reason: string;
  /** Defaults by type (CONTRACT §4). */
  returnCode?: string | undefined;
  /** Epoch ms; null or absent: permanent. */
  expiresAt?: number | null | undefined;
  actor?: string | undefined;
}

export interface DelistOptions {
  reason?: string | undefined;
  actor?: string | undefined;
}

/** A change seen in the event log: the address and its listing now (null: not listed). */
export interface ListingChange {
  eventId: number;
  ip: string;
  listing: Listing | null;
}

// ---- HTTP answer shapes (spec §2.4) ----

const Timestamp = (description: string) => Type.String({ format: 'date-time', description });

export const ListingAnswer = Type.Object({
  type: ListingType,
  reason: Type.String({ description: 'Why the address is listed' }),
  return_code: Type.String({ description: 'DNS A answer of the listing in the DNSBL zone (127.0.0.0/8)' }),
  listed_at: Timestamp('When the current listing began'),
  expires_at: Type.Union([Timestamp('When the listing ends'), Type.Null()], {
    description: 'When the listing ends; null if permanent',
  }),
});
export type ListingAnswer = Static<typeof ListingAnswer>;

export const CheckAnswer = Type.Object({
  ip: Type.String({ description: 'The address, normalized' }),
  listed: Type.Boolean({ description: 'True while an active listing exists' }),
  listing: Type.Optional(ListingAnswer),
});
export type CheckAnswer = Static<typeof CheckAnswer>;

export const BatchCheckAnswer = Type.Array(CheckAnswer, {
  description: 'One item per requested address, in order',
});

export const StatsAnswer = Type.Object({
  total_active: Type.Integer({ minimum: 0, description: 'Active listings' }),
  by_type: Type.Object(
    {
      spam: Type.Integer({ minimum: 0, description: 'Active spam listings' }),
      malware: Type.Integer({ minimum: 0, description: 'Active malware listings' }),
      phishing: Type.Integer({ minimum: 0, description: 'Active phishing listings' }),
    },
    { description: 'Active listings per type' },
  ),
  new_listings_24h: Type.Integer({ minimum: 0, description: '`listed` events in the last 24 hours' }),
  delistings_24h: Type.Integer({
    minimum: 0,
    description: '`delisted` events (including expiries) in the last 24 hours',
  }),
});
export type StatsAnswer = Static<typeof StatsAnswer>;

export const EventAnswer = Type.Object({
  ip: Type.String({ description: 'The address, normalized' }),
  action: Type.Union([Type.Literal('listed'), Type.Literal('delisted')], { description: 'What happened' }),
  type: ListingType,
  reason: Type.String({
    description: 'Listing reason; on delisted events the delisting reason (`expired` for expiries)',
  }),
  return_code: Type.String({ description: 'DNS return code of the listing' }),
  listed_at: Timestamp('When the listing began'),
  expires_at: Type.Optional(
    Type.Union([Timestamp('Expiry'), Type.Null()], {
      description: 'On listed events: expiry, null if permanent',
    }),
  ),
  delisted_at: Type.Optional(Timestamp('On delisted events: when the listing ended')),
  performed_at: Timestamp('When the event was recorded'),
});
export type EventAnswer = Static<typeof EventAnswer>;

export const RecentAnswer = Type.Object({
  events: Type.Array(EventAnswer, { description: 'Newest first' }),
  count: Type.Integer({ minimum: 0, description: 'Number of events in this page' }),
  limit: Type.Integer({ minimum: 1, maximum: 100, description: 'Page size used' }),
  offset: Type.Integer({ minimum: 0, description: 'Events skipped' }),
});
export type RecentAnswer = Static<typeof RecentAnswer>;

export const DelistAnswer = Type.Object({
  ip: Type.String({ description: 'The address, normalized' }),
  listed: Type.Literal(false, { description: 'Always false after a delisting' }),
});
export type DelistAnswer = Static<typeof DelistAnswer>;

/** CONTRACT §4 operator body. */
export const ListBody = Type.Object(
  {
    ip: Type.String({ maxLength: 64, description: 'IPv4 or IPv6 address' }),
    type: ListingType,
    reason: Type.String({ minLength: 1, maxLength: MAX_REASON_LENGTH, description: 'Why it is listed' }),
    return_code: Type.Optional(
      Type.String({
        maxLength: 15,
        description: 'DNS return code in 127.0.0.0/8, not 127.0.0.1; default by type',
      }),
    ),
    expires_at: Type.Optional(
      // null (permanent) or an RFC 3339 time.
      Type.Union([Type.Null(), Type.String({ maxLength: 40, description: 'RFC 3339 time in the future' })], {
        description: 'When the listing ends; absent or null: permanent',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListBody = Static<typeof ListBody>;

export const DelistBody = Type.Object(
  {
    reason: Type.Optional(
      Type.String({ minLength: 1, maxLength: MAX_REASON_LENGTH, description: 'Why it is delisted' }),
    ),
  },
  { additionalProperties: false },
);
export type DelistBody = Static<typeof DelistBody>;
