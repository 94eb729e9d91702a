import { type Static, Type } from '@sinclair/typebox';

/** Answer shapes of the warm-up and pool module (spec §2.6, §3.1, §3.2). */

export const WarmupStatus = Type.Union(
  [
    Type.Literal('cold'),
    Type.Literal('warming'),
    Type.Literal('warm'),
    Type.Literal('established'),
    Type.Literal('damaged'),
  ],
  { description: 'Warm-up status of the sending IP' },
);
export type WarmupStatus = Static<typeof WarmupStatus>;

export const WarmupData = Type.Object({
  ip: Type.String({ description: 'Normalized address' }),
  status: WarmupStatus,
  days_sending: Type.Integer({
    minimum: 0,
    description:
      'UTC calendar days since the first production telemetry with volume_24h > 0, that day being day 1; 0 when cold',
  }),
  reputation_score: Type.Integer({ minimum: 0, maximum: 100, description: 'Current reputation score' }),
  recommended_daily_volume: Type.Integer({
    minimum: 0,
    description:
      'Messages per day for the current warm-up day after the score adjustment; 0 means do not send',
  }),
  auto_pause_recommended: Type.Boolean({
    description: 'True when the score is below 40 or the IP is listed',
  }),
  auto_pause_reason: Type.Union([Type.String(), Type.Null()], {
    description: 'Why sending should pause; null when no pause is recommended',
  }),
  next_milestone: Type.Union([Type.String({ format: 'date' }), Type.Null()], {
    description: 'UTC date (YYYY-MM-DD) of the next volume step; null past the last step',
  }),
  next_milestone_volume: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description: 'Volume of the next step, adjusted by the current score; null past the last step',
  }),
});
export type WarmupData = Static<typeof WarmupData>;

export const PoolTier = Type.Union(
  [
    Type.Literal('dedicated_candidate'),
    Type.Literal('seasoned'),
    Type.Literal('probation'),
    Type.Literal('suspend'),
  ],
  { description: 'Pool tier: where the IP belongs in a sending pool' },
);
export type PoolTier = Static<typeof PoolTier>;

export const PoolClassificationItem = Type.Object({
  ip: Type.String({ description: 'Normalized address' }),
  tier: PoolTier,
  reputation_score: Type.Integer({ minimum: 0, maximum: 100, description: 'Current reputation score' }),
  warmup_status: WarmupStatus,
  listed: Type.Boolean({ description: 'True while an active blocklist listing exists' }),
  fcrdns_status: Type.Union([Type.Literal('pass'), Type.Literal('fail'), Type.Literal('unknown')], {
    description: 'Latest forward-confirmed reverse-DNS outcome',
  }),
  recommendation: Type.String({ description: 'What to do with the address, in one or two sentences' }),
});
export type PoolClassificationItem = Static<typeof PoolClassificationItem>;

export const GraduationState = Type.Object(
  {
    previous_tier: PoolTier,
    tier: PoolTier,
    reputation_score: Type.Integer({ minimum: 0, maximum: 100, description: 'Score at graduation' }),
    warmup_status: WarmupStatus,
    listed: Type.Boolean({ description: 'Listing state at graduation' }),
    fcrdns_status: Type.Union([Type.Literal('pass'), Type.Literal('fail'), Type.Literal('unknown')], {
      description: 'FCrDNS outcome at graduation',
    }),
  },
  { description: 'Aggregate classification fields carried by a graduation event (spec §6)' },
);
export type GraduationState = Static<typeof GraduationState>;
