import { type Static, Type } from '@sinclair/typebox';

/** Shapes of telemetry ingestion (spec §2.9). */

export const ObservationInput = Type.Object(
  {
    ip: Type.String({ description: 'Sending IP (IPv4 or IPv6), required' }),
    bounce_rate: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'Bounce rate 0.0-1.0' })),
    complaint_rate: Type.Optional(
      Type.Number({ minimum: 0, maximum: 1, description: 'Complaint rate 0.0-1.0' }),
    ),
    volume_24h: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Messages sent in the last 24 hours' }),
    ),
    observed_at: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'ISO 8601 with a time zone; within the last 48 hours, not in the future; defaults to now',
      }),
    ),
  },
  { description: 'One telemetry observation; at least one of the three measurements is required' },
);
export type ObservationInput = Static<typeof ObservationInput>;

export const IngestRequest = Type.Object({
  observations: Type.Array(ObservationInput, {
    minItems: 1,
    maxItems: 100,
    description: '1-100 observations, each accepted or rejected on its own',
  }),
});
export type IngestRequest = Static<typeof IngestRequest>;

export const IngestResult = Type.Object({
  accepted: Type.Integer({ minimum: 0, description: 'Observations stored' }),
  rejected: Type.Integer({ minimum: 0, description: 'Observations refused' }),
  errors: Type.Array(Type.String(), {
    description: 'One entry per rejected observation, naming its index and the reason',
  }),
});
export type IngestResult = Static<typeof IngestResult>;

/** A validated observation, ready to store. Absent measurements are null. */
export interface Observation {
  /** Normalized address. */
  ip: string;
  bounceRate: number | null;
  complaintRate: number | null;
  volume24h: number | null;
  /** Epoch ms, UTC; never after the `now` it was validated against. */
  observedAt: number;
}
