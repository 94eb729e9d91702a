/**
 * Dashboard → Audit jobs (issue 36 item 7): the signed-in user's jobs, each opening to its
 * result (gate and reasons, counts per list, observations, events), a form that starts a job as
 * `POST /v1/audit/jobs` would (the user as the actor, no key), and cancelling an open job.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CreateAuditJobBody } from '../../audit/index.ts';
import { isAppError } from '../../core/errors.ts';
import { auditJobPage } from '../../web/audit-job-page.ts';
import { type AuditFormValues, auditPage } from '../../web/audit-page.ts';
import type { Viewer } from '../../web/pages.ts';
import type { HttpApp, HttpServices } from '../context.ts';
import { type Form, type FormName, field, readForm } from '../dashboard-forms.ts';
import { dashboardPlugins, sameToken, sessionOf, toPasswordChange, toSignIn } from '../dashboard-session.ts';
import { sendHtml } from '../html-reply.ts';

const route = { config: { access: { kind: 'none' as const } }, schema: { hide: true } };
const jobRoute = {
  ...route,
  schema: { hide: true, params: Type.Object({ id: Type.String({ maxLength: 20 }) }) },
};
const jobIdOf = (param: string) => (/^[1-9]\d{0,14}$/.test(param) ? Number(param) : null);

function formValues(form: Form): AuditFormValues {
  return {
    targets: field(form, 'targets'),
    dataset_version: field(form, 'dataset_version'),
    seed: field(form, 'seed'),
    max_samples: field(form, 'max_samples'),
    acceptance: field(form, 'acceptance') === 'true',
  };
}

/** The create form's fields as the request body the API takes, or what is wrong with them. */
function bodyOf(v: AuditFormValues): { body: CreateAuditJobBody } | { error: string } {
  const targets = v.targets.split(/[\s,]+/).filter((t) => t !== '');
  if (targets.length === 0)
    return { error: 'Give at least one target: an IP address, a CIDR network or an ASN.' };
  const body = {
    targets,
    dataset_version: Number(v.dataset_version),
    seed: v.seed,
    ...(v.max_samples === '' ? {} : { max_samples: Number(v.max_samples) }),
    acceptance: v.acceptance,
  };
  const first = Value.Errors(CreateAuditJobBody, body).First();
  if (first) return { error: `${first.path.slice(1).split('/')[0] || 'The form'}: ${first.message}.` };
  return { body: body as CreateAuditJobBody };
}

export function dashboardAuditRoutes(app: HttpApp, services: HttpServices): void {
  const { accounts, audit } = services;

  /** The signed-in user (of a form whose CSRF token matches), with the form's fields. */
  const session = async (request: FastifyRequest, form?: FormName) => {
    const s = await sessionOf(accounts, request);
    if (!s) return null;
    if (!form) return { ...s, form: {}, wrong: null };
    const read = readForm(request.body, form);
    return sameToken(field(read.form, '_csrf'), s.csrf) ? { ...s, ...read } : null;
  };
  const viewerOf = (s: { user: { email: string; role: string }; csrf: string }): Viewer => ({
    email: s.user.email,
    role: s.user.role,
    csrf: s.csrf,
  });
  const blankForm = (): AuditFormValues => ({
    targets: '',
    dataset_version: String(services.datasetVersion() ?? ''),
    seed: `dashboard-${new Date(services.clock()).toISOString().slice(0, 10)}`,
    max_samples: '256',
    acceptance: true,
  });
  const renderList = async (
    reply: FastifyReply,
    s: { user: { id: number; email: string; role: string }; csrf: string },
    extra: { form?: AuditFormValues; error?: string } = {},
    status = 200,
  ) => {
    const jobs = await audit.list(s.user.id, 50, 0);
    const form = extra.form ?? blankForm();
    return sendHtml(reply, auditPage({ viewer: viewerOf(s), jobs, form, ...extra }), status);
  };

  /** Starts a job from the form; a refusal shows the form again with what was given. */
  const createJob = async (request: FastifyRequest, reply: FastifyReply) => {
    const s = await session(request, 'createAudit');
    if (!s) return toSignIn(reply);
    if (s.user.mustChangePassword) return toPasswordChange(reply);
    const form = formValues(s.form);
    if (s.wrong) return renderList(reply, s, { form, error: s.wrong }, 400);
    const parsed = bodyOf(form);
    if ('error' in parsed) return renderList(reply, s, { form, error: parsed.error }, 400);
    try {
      const { job } = await audit.create(parsed.body, { ownerId: s.user.id, keyId: null });
      return reply.code(303).header('location', `/dashboard/audit/${job.id}`).send();
    } catch (err) {
      if (!isAppError(err)) throw err;
      return renderList(reply, s, { form, error: err.message }, err.status);
    }
  };

  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    await dashboardPlugins(plugin);

    scope.get('/dashboard/audit', route, async (request, reply) => {
      const s = await session(request);
      if (!s) return toSignIn(reply);
      if (s.user.mustChangePassword) return toPasswordChange(reply);
      return renderList(reply, s);
    });

    scope.post('/dashboard/audit', route, createJob);

    scope.get('/dashboard/audit/:id', jobRoute, async (request, reply) => {
      const s = await session(request);
      if (!s) return toSignIn(reply);
      if (s.user.mustChangePassword) return toPasswordChange(reply);
      const id = jobIdOf(request.params.id);
      const result = id === null ? null : await audit.result(id, s.user.id);
      if (!result) return renderList(reply, s, { error: 'No such audit job.' }, 404);
      return sendHtml(reply, auditJobPage({ viewer: viewerOf(s), result }));
    });

    scope.post('/dashboard/audit/:id/cancel', jobRoute, async (request, reply) => {
      const s = await session(request, 'cancelAudit');
      if (!s) return toSignIn(reply);
      if (s.user.mustChangePassword) return toPasswordChange(reply);
      const id = jobIdOf(request.params.id);
      const done = id === null ? null : await audit.cancel(id, { ownerId: s.user.id, keyId: null });
      if (!done) return renderList(reply, s, { error: 'No such audit job.' }, 404);
      return reply.code(303).header('location', `/dashboard/audit/${done.job.id}`).send();
    });
  });
}
