/**
 * Header analysis routes (spec §2.8, §4 rule 5, §8): the anonymous tool and its keyed alias.
 * Body `{headers}` up to 64 KiB (413 PAYLOAD_TOO_LARGE), `headers` up to 49152 bytes
 * (HEADERS_TOO_LARGE), missing or blank → MISSING_HEADERS. Hop enrichment comes from
 * `services.enrichIp` (intel) when wired, and the answer's meta.dataset_version names the serving
 * dataset; `dmarc_policy` is looked up on the public route only.
 */
import { lookupDmarcPolicy } from '../../emailauth/index.ts';
import {
  type AnalyzeOptions,
  analyzeHeaders,
  checkHeadersInput,
  HeaderAnalysisSchema,
  type HeaderAnalyzerBody,
  HeaderAnalyzerBodySchema,
} from '../../headers/index.ts';
import type { HttpApp, HttpServices } from '../context.ts';
import { analyzeHeadersExample } from '../examples/tools.ts';
import { envelope, errorResponses } from '../schemas.ts';
import { datasetMeta } from '../serving-intel.ts';

/** Spec §8: the JSON body of a header analysis is limited to 64 KiB. */
export const HEADER_ANALYZER_BODY_LIMIT = 64 * 1024;

export function headerAnalyzerRoutes(app: HttpApp, services: HttpServices): void {
  const schema = (operationId: string, summary: string) => ({
    operationId,
    examples: analyzeHeadersExample,
    tags: ['tools'],
    summary,
    description:
      'Body {headers} (JSON, at most 64 KiB; headers at most 49152 bytes). Received hops in delivery order; ' +
      'the 20 hops nearest the recipient are enriched with intel. authentication lists every ' +
      'Authentication-Results header with its authserv-id and whether it is trusted (NETREP_TRUSTED_AUTHSERV_IDS, ' +
      'else the top-most header), every dkim= result and DKIM-Signature, and the ARC chain (instances, cv= of ' +
      'each seal, the last verdict, structural faults, ARC-Authentication-Results); read, never verified.',
    body: HeaderAnalyzerBodySchema,
    response: {
      200: envelope(HeaderAnalysisSchema),
      ...errorResponses('MISSING_HEADERS', 'HEADERS_TOO_LARGE'),
    },
  });
  // The body schema checked the shape (a missing field is MISSING_HEADERS); checkHeadersInput checks the value.
  const analyze = (body: HeaderAnalyzerBody, dmarc: boolean) => {
    const options: AnalyzeOptions = {
      clock: services.clock,
      enrich: services.enrichIp,
      trustedAuthservIds: services.config.trustedAuthservIds,
    };
    if (dmarc) {
      options.dmarcPolicy = (domain) =>
        lookupDmarcPolicy(domain, { dns: services.dns, clock: services.clock });
    }
    return analyzeHeaders(checkHeadersInput(body.headers), options);
  };

  app.post(
    '/v1/public/tools/header-analyzer',
    {
      bodyLimit: HEADER_ANALYZER_BODY_LIMIT,
      config: { access: { kind: 'public', bucket: 'public' } },
      schema: schema(
        'analyzeHeadersPublic',
        'Header analyzer (anonymous): delivery path, authentication, origin, anomalies, DMARC policy.',
      ),
    },
    async (request) => ({ data: await analyze(request.body, true), meta: datasetMeta(services) }),
  );
  app.post(
    '/v1/tools/header-analyzer',
    {
      bodyLimit: HEADER_ANALYZER_BODY_LIMIT,
      config: { access: { kind: 'key', permission: 'email:read' } },
      schema: schema(
        'analyzeHeaders',
        'Header analyzer, key-protected alias of the public route (no DMARC policy lookup).',
      ),
    },
    async (request) => ({ data: await analyze(request.body, false), meta: datasetMeta(services) }),
  );
}
