/** Audit jobs (SERVICE-SPEC §2.11, §3.4; CONTRACT §1, §10): owner-scoped, permission audit:write. */
import { Type } from '@sinclair/typebox';
import {
  AuditJob,
  AuditJobList,
  AuditResult,
  CancelAuditJobResult,
  CreateAuditJobBody,
  CreateAuditJobResult,
} from '../../audit/index.ts';
import { AppError } from '../../core/errors.ts';
import type { HttpApp, HttpServices } from '../context.ts';
import {
  cancelAuditJobExample,
  createAuditJobExample,
  getAuditJobExample,
  getAuditJobResultExample,
  listAuditJobsExample,
} from '../examples/audit.ts';
import { envelope, errorResponses } from '../schemas.ts';

const access = { kind: 'key', permission: 'audit:write' } as const;
const JobId = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Audit job id' }),
});
const notFound = () => new AppError('NOT_FOUND', 'audit job not found');

/** The caller of a keyed request (owner 0 and no key when there is none). */
const callerOf = (p: { keyId: number; ownerId: number } | null) => ({
  ownerId: p?.ownerId ?? 0,
  keyId: p?.keyId ?? null,
});

/** Create and list audit jobs. */
function jobRoutes(app: HttpApp, services: HttpServices): void {
  const { audit } = services;

  app.post(
    '/v1/audit/jobs',
    {
      config: { access },
      schema: {
        tags: ['audit'],
        operationId: 'createAuditJob',
        examples: createAuditJobExample,
        summary:
          'Create an audit job, or reuse a fresh succeeded one of the same request (200, reused: true).',
        body: CreateAuditJobBody,
        response: {
          200: envelope(CreateAuditJobResult),
          202: envelope(CreateAuditJobResult),
          ...errorResponses(
            'INVALID_IP',
            'TOO_MANY_IPS',
            'INVALID_ASN',
            'POPULATION_TOO_LARGE',
            'DATASET_VERSION_UNAVAILABLE',
          ),
        },
      },
    },
    async (request, reply) => {
      const out = await audit.create(request.body, callerOf(request.principal));
      reply.code(out.reused ? 200 : 202);
      return { data: out };
    },
  );

  app.get(
    '/v1/audit/jobs',
    {
      config: { access },
      schema: {
        tags: ['audit'],
        operationId: 'listAuditJobs',
        examples: listAuditJobsExample,
        summary: "The caller's own audit jobs, newest first.",
        querystring: Type.Object({
          limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1-100' }),
          offset: Type.Integer({
            minimum: 0,
            maximum: 1_000_000_000,
            default: 0,
            description: 'Jobs to skip',
          }),
        }),
        response: { 200: envelope(AuditJobList) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const jobs = await audit.list(callerOf(request.principal).ownerId, limit, offset);
      return { data: { jobs, count: jobs.length, limit, offset } };
    },
  );
}

/** One audit job: its state, its result, its cancellation. */
function jobReadRoutes(app: HttpApp, services: HttpServices): void {
  const { audit } = services;

  app.get(
    '/v1/audit/jobs/:id',
    {
      config: { access },
      schema: {
        tags: ['audit'],
        operationId: 'getAuditJob',
        examples: getAuditJobExample,
        summary: 'One audit job of the caller.',
        params: JobId,
        response: { 200: envelope(AuditJob), ...errorResponses('NOT_FOUND') },
      },
    },
    async (request) => {
      const job = await audit.get(request.params.id, callerOf(request.principal).ownerId);
      if (!job) throw notFound();
      return { data: job };
    },
  );

  app.get(
    '/v1/audit/jobs/:id/result',
    {
      config: { access },
      schema: {
        tags: ['audit'],
        operationId: 'getAuditJobResult',
        examples: getAuditJobResultExample,
        summary: 'The full result: job, sampled targets, observations and events.',
        params: JobId,
        response: { 200: envelope(AuditResult), ...errorResponses('NOT_FOUND') },
      },
    },
    async (request) => {
      const result = await audit.result(request.params.id, callerOf(request.principal).ownerId);
      if (!result) throw notFound();
      return { data: result };
    },
  );

  app.post(
    '/v1/audit/jobs/:id/cancel',
    {
      config: { access },
      schema: {
        tags: ['audit'],
        operationId: 'cancelAuditJob',
        examples: cancelAuditJobExample,
        summary: 'Cancel: a queued job closes at once, a running one stops between probes.',
        params: JobId,
        response: { 200: envelope(CancelAuditJobResult), ...errorResponses('NOT_FOUND') },
      },
    },
    async (request) => {
      const out = await audit.cancel(request.params.id, callerOf(request.principal));
      if (!out) throw notFound();
      return { data: out };
    },
  );
}

export function auditRoutes(app: HttpApp, services: HttpServices): void {
  jobRoutes(app, services);
  jobReadRoutes(app, services);
}
