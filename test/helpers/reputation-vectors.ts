/**
 * Loads test/vectors/reputation-vectors.json and warmup-vectors.json and turns a vector's
 * JSON-friendly input (ages relative to `now`) into absolute rows. The pure tests feed the rows
 * to deriveEvidence/scoreReputation; an HTTP replay posts the same rows through the admin,
 * blocklist and telemetry routes with the app clock set to `now`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { DAY_MS } from '../../src/core/clock.ts';
import { parseIp } from '../../src/core/ip.ts';
import {
  EVIDENCE_KINDS,
  type EvidenceFacts,
  FactorName,
  ListingType,
  ReputationLevel,
} from '../../src/reputation/index.ts';
import { PoolTier, WarmupStatus } from '../../src/warmup/index.ts';

const VECTOR_DIR = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../vectors');
const HOUR_MS = 3_600_000;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const ReputationVectorInput = Type.Object({
  ip: Type.String(),
  blocklist: Type.Array(
    Type.Object({
      action: Type.Union([Type.Literal('listed'), Type.Literal('delisted')]),
      type: Type.Optional(ListingType),
      age_days: Type.Number({ minimum: 0 }),
    }),
  ),
  neighbor_listings: Type.Integer({ minimum: 0 }),
  evidence: Type.Array(
    Type.Object({
      kind: Type.Union(EVIDENCE_KINDS.map((k) => Type.Literal(k))),
      age_days: Type.Number({ minimum: 0 }),
      synthetic: Type.Boolean(),
    }),
  ),
  telemetry: Type.Array(
    Type.Object({
      age_hours: Type.Number({ minimum: 0, maximum: 47 }),
      bounce_rate: Type.Optional(Type.Number()),
      complaint_rate: Type.Optional(Type.Number()),
      volume_24h: Type.Optional(Type.Integer()),
    }),
  ),
  geo_change_count: Nullable(Type.Integer({ minimum: 0 })),
  fcrdns: Nullable(Type.Union([Type.Literal('pass'), Type.Literal('fail')])),
  datacenter: Nullable(Type.Boolean()),
});
export type ReputationVectorInput = Static<typeof ReputationVectorInput>;

export const ReputationVector = Type.Object({
  name: Type.String({ minLength: 1 }),
  rule: Type.String({ minLength: 1 }),
  input: ReputationVectorInput,
  expected: Type.Object({
    score: Type.Integer({ minimum: 0, maximum: 100 }),
    level: ReputationLevel,
    factors: Type.Array(Type.Object({ name: FactorName, impact: Type.Integer() })),
  }),
});
export type ReputationVector = Static<typeof ReputationVector>;

const ReputationVectorFile = Type.Object({
  now: Type.String(),
  vectors: Type.Array(ReputationVector, { minItems: 70 }),
});

export const WarmupVector = Type.Object({
  name: Type.String({ minLength: 1 }),
  rule: Type.String({ minLength: 1 }),
  input: Type.Object({
    now: Type.String(),
    first_sending_at: Nullable(Type.String()),
    reputation_score: Type.Integer({ minimum: 0, maximum: 100 }),
    listed: Type.Boolean(),
    volume_24h: Nullable(Type.Integer({ minimum: 0 })),
    fcrdns: Type.Union([Type.Literal('pass'), Type.Literal('fail'), Type.Literal('unknown')]),
  }),
  expected: Type.Object({
    status: WarmupStatus,
    days_sending: Type.Integer({ minimum: 0 }),
    recommended_daily_volume: Type.Integer({ minimum: 0 }),
    auto_pause_recommended: Type.Boolean(),
    next_milestone: Nullable(Type.String()),
    next_milestone_volume: Nullable(Type.Integer({ minimum: 0 })),
    tier: PoolTier,
  }),
});
export type WarmupVector = Static<typeof WarmupVector>;

const WarmupVectorFile = Type.Object({ vectors: Type.Array(WarmupVector, { minItems: 1 }) });

function readChecked<T>(file: string, schema: Parameters<typeof Value.Check>[0]): T {
  const data: unknown = JSON.parse(fs.readFileSync(path.join(VECTOR_DIR, file), 'utf8'));
  if (!Value.Check(schema, data)) {
    const first = [...Value.Errors(schema, data)][0];
    throw new Error(`${file} is malformed at ${first?.path}: ${first?.message}`);
  }
  return data as T;
}

export function loadReputationVectors(): { now: number; vectors: ReputationVector[] } {
  const file = readChecked<Static<typeof ReputationVectorFile>>(
    'reputation-vectors.json',
    ReputationVectorFile,
  );
  return { now: Date.parse(file.now), vectors: file.vectors };
}

export function loadWarmupVectors(): WarmupVector[] {
  return readChecked<Static<typeof WarmupVectorFile>>('warmup-vectors.json', WarmupVectorFile).vectors;
}

/** The stored rows a vector describes, at absolute times. */
export function vectorToFacts(input: ReputationVectorInput, now: number): EvidenceFacts {
  const ip = parseIp(input.ip);
  if (ip === null) throw new Error(`vector ip ${input.ip} is invalid`);
  const last = input.blocklist.at(-1);
  const activeListing = last?.action === 'listed' ? (last.type ?? 'spam') : null;
  return {
    ip: ip.address,
    activeListing,
    listedEvents: input.blocklist.filter((a) => a.action === 'listed').map((a) => now - a.age_days * DAY_MS),
    evidence: input.evidence.map((e) => ({
      kind: e.kind,
      observedAt: now - e.age_days * DAY_MS,
      synthetic: e.synthetic,
    })),
    telemetry: input.telemetry.map((t) => ({
      observedAt: now - t.age_hours * HOUR_MS,
      bounceRate: t.bounce_rate ?? null,
      complaintRate: t.complaint_rate ?? null,
      volume24h: t.volume_24h ?? null,
      synthetic: false,
    })),
    geoChangeCount: input.geo_change_count,
    fcrdns: input.fcrdns ?? 'unknown',
    datacenter: input.datacenter,
    subnetActiveListings: ip.family === 4 ? input.neighbor_listings + (activeListing === null ? 0 : 1) : null,
  };
}
