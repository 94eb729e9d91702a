/** Telemetry ingestion (spec §2.9, rule 3): each observation accepted or rejected on its own. */
import { Type } from '@sinclair/typebox';
import { IngestResult, MAX_OBSERVATIONS } from '../../telemetry/index.ts';
import type { HttpApp, HttpServices } from '../context.ts';
import { ingestTelemetryExample } from '../examples/email.ts';
import { envelope, errorResponses } from '../schemas.ts';

const IngestBody = Type.Object({
  observations: Type.Array(
    Type.Unknown({
      description:
        '{ip, bounce_rate? (0.0-1.0), complaint_rate? (0.0-1.0), volume_24h? (integer >= 0), observed_at? (RFC 3339, last 48 h, default now)}',
    }),
    {
      minItems: 1,
      maxItems: MAX_OBSERVATIONS,
      description: '1-100 observations; an invalid one is rejected and explained, the others are stored',
    },
  ),
});

export function telemetryRoutes(app: HttpApp, services: HttpServices): void {
  const { telemetry } = services;

  app.post(
    '/v1/email/telemetry/ingest',
    {
      config: { access: { kind: 'key', permission: 'telemetry:write', missingKeyCode: 'AUTH_REQUIRED' } },
      schema: {
        tags: ['email'],
        operationId: 'ingestTelemetry',
        examples: ingestTelemetryExample,
        summary: 'Ingest sending telemetry (bounce rate, complaint rate, volume) per IP.',
        body: IngestBody,
        response: { 200: envelope(IngestResult), ...errorResponses('TOO_MANY_OBSERVATIONS') },
      },
    },
    async (request) => {
      const principal = request.principal;
      const by = { keyId: principal?.keyId ?? 0, ownerId: principal?.ownerId ?? 0 };
      return { data: await telemetry.ingest(request.body, by) };
    },
  );
}
