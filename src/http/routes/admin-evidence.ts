/** Operator evidence ingestion (CONTRACT §4): trap hits and honeypot activity, production or synthetic. */
import { Type } from '@sinclair/typebox';
import { MAX_EVIDENCE_EVENTS, MAX_SOURCE_LENGTH } from '../../reputation/index.ts';
import { IngestResult } from '../../telemetry/index.ts';
import type { HttpApp, HttpServices } from '../context.ts';
import { recordEvidenceExample } from '../examples/admin.ts';
import { envelope } from '../schemas.ts';

const EvidenceBody = Type.Object({
  events: Type.Array(
    Type.Unknown({
      description: `{ip, kind: pristine_trap|recycled_trap|typo_trap|smtp_honeypot, observed_at (RFC 3339, up to 10 years back, not in the future), synthetic? (default false), source? (up to ${MAX_SOURCE_LENGTH} characters, the feed row's limit)}`,
    }),
    {
      minItems: 1,
      maxItems: MAX_EVIDENCE_EVENTS,
      description: '1-1000 events; an invalid one is rejected and explained, the others are stored',
    },
  ),
});

export function adminEvidenceRoutes(app: HttpApp, services: HttpServices): void {
  const { reputation } = services;

  app.post(
    '/v1/admin/evidence',
    {
      config: { access: { kind: 'key', permission: 'admin' } },
      schema: {
        tags: ['admin'],
        operationId: 'recordEvidence',
        examples: recordEvidenceExample,
        summary: 'Record trap hits and SMTP honeypot activity for the reputation score.',
        body: EvidenceBody,
        response: { 200: envelope(IngestResult) },
      },
    },
    async (request) => ({ data: await reputation.recordEvidence(request.body) }),
  );
}
