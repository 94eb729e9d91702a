/**
 * The public tool pages (issue 19): `/` and `/tools/ip|domain|headers|blocklist`, plain HTML forms
 * the server answers. Each calls the same domain function as its anonymous API twin and, when a
 * question is asked, counts one request against the same `public` per-IP bucket. Bad input
 * re-renders the form with the message and the error's 4xx status; nothing here answers JSON.
 */
import formbody from '@fastify/formbody';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, isAppError } from '../../core/errors.ts';
import { parseIp } from '../../core/ip.ts';
import { checkDomain, describeResolvers, dnsUnavailable, lookupDmarcPolicy } from '../../emailauth/index.ts';
import { analyzeHeaders, checkHeadersInput } from '../../headers/index.ts';
import { isStoreUnavailable } from '../../store/index.ts';
import { blocklistToolPage } from '../../web/blocklist-page.ts';
import { feedsPage } from '../../web/feeds-page.ts';
import { ipToolPage } from '../../web/ip-page.ts';
import { domainToolPage, headersToolPage, homePage, toolErrorPage } from '../../web/tool-pages.ts';
import type { HttpApp, HttpServices } from '../context.ts';
import { STORE_OUTAGE_TEXT, sendHtml } from '../html-reply.ts';
import { scanQuota } from '../scan-quota.ts';
import { servingIntel } from '../serving-intel.ts';

/** Spec §8: a header analysis request is at most 64 KiB (the form's encoding included). */
const FORM_BODY_LIMIT = 64 * 1024;

/** Anonymous HTML pages: no key, no `{data, meta}` envelope (errors are pages too). */
const none = { access: { kind: 'none' as const }, envelope: false };
const hidden = { hide: true };

/** One text field of a query or form body; absent → undefined; repeated or not text → ''. */
function textField(source: unknown, name: string): string | undefined {
  if (typeof source !== 'object' || source === null) return undefined;
  const v = (source as Record<string, unknown>)[name];
  if (v === undefined) return undefined;
  return typeof v === 'string' ? v : '';
}

function ipOrThrow(raw: string): string {
  const trimmed = raw.trim();
  if (trimmed === '') throw new AppError('INVALID_IP', 'Enter an IP address, for example 8.8.8.8.');
  const ip = parseIp(trimmed);
  if (!ip) throw new AppError('INVALID_IP', `"${trimmed.slice(0, 100)}" is not an IPv4 or IPv6 address.`);
  return ip.address;
}

type Answer = ReturnType<typeof answererOf>;

/**
 * Asks one question on behalf of the client: one request of the `public` bucket, then the
 * answer; an AppError (bad input, limit, not ready) becomes the form again with its message.
 */
function answererOf(limits: HttpServices['limits']) {
  return async <T>(
    request: FastifyRequest,
    reply: FastifyReply,
    ask: () => Promise<T>,
    render: (r: { answer?: T; error?: string }) => string,
  ) => {
    try {
      request.limitState = await limits.consumeMinute('public', request.clientIp);
      return sendHtml(reply, render({ answer: await ask() }));
    } catch (err) {
      if (!isAppError(err)) throw err;
      for (const [k, v] of Object.entries(err.headers ?? {})) reply.header(k, v);
      const error =
        err.code === 'RATE_LIMIT_EXCEEDED'
          ? `Too many questions from your address (at most ${limits.buckets.public.points} a minute). Try again in ${err.headers?.['retry-after'] ?? 'a few'} seconds.`
          : err.message;
      return sendHtml(reply, render({ error }), err.status);
    }
  };
}

/** Requests refused before a handler ran (too large, unreadable body) get a page, not JSON. */
function answerPageError(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const status = (err as { statusCode?: unknown }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const text =
      status === 413
        ? 'That is too much text: at most 48 KiB of headers.'
        : 'The request could not be read; use the form.';
    return sendHtml(reply, toolErrorPage(text), status);
  }
  if (isStoreUnavailable(err)) {
    // The store out of reach (a blocklist question): 503 and a page that says to retry.
    request.log.warn({ err, reqId: request.id }, 'store unavailable');
    reply.header('retry-after', '5');
    return sendHtml(reply, toolErrorPage(STORE_OUTAGE_TEXT), 503);
  }
  request.log.error({ err, reqId: request.id }, 'unhandled error');
  return sendHtml(reply, toolErrorPage('Something went wrong on our side.'), 500);
}

/** The start page and the feeds page: no question asked. */
function infoPages(scope: HttpApp, services: HttpServices): void {
  const { limits } = services;
  scope.get('/', { config: none, schema: hidden }, async (_request, reply) =>
    sendHtml(
      reply,
      homePage({ datasetVersion: services.datasetVersion(), perMinute: limits.buckets.public.points }),
    ),
  );

  // What the feeds are and how a key downloads them (the keyed catalog answers 401 to a browser).
  scope.get('/feeds', { config: none, schema: hidden }, async (request, reply) =>
    sendHtml(
      reply,
      feedsPage({
        baseUrl: services.config.publicUrl.replace(/\/+$/, '') || `${request.protocol}://${request.host}`,
      }),
    ),
  );
}

/** The four tools, each a form that asks its question through `answer`. */
function toolForms(scope: HttpApp, services: HttpServices, answer: Answer): void {
  scope.get('/tools/ip', { config: none, schema: hidden }, async (request, reply) => {
    const ip = textField(request.query, 'ip');
    if (ip === undefined) return sendHtml(reply, ipToolPage({}));
    return answer(
      request,
      reply,
      async () => {
        const parsed = parseIp(ipOrThrow(ip));
        const intel = servingIntel(services.intel);
        const found = parsed ? await intel.lookupExtended(parsed) : null;
        if (!parsed || !found) throw new AppError('NOT_FOUND', `No data for ${parsed?.address ?? ip}.`);
        // The service scan's fields, on the same terms as GET /v1/public/ip/{ip} (issue #34).
        const scan = await services.scan.forLookup(parsed, scanQuota(services.limits, request.clientIp));
        return { ...found, ...scan };
      },
      (r) => ipToolPage({ ip, ...r }),
    );
  });

  scope.get('/tools/domain', { config: none, schema: hidden }, async (request, reply) => {
    const domain = textField(request.query, 'domain');
    if (domain === undefined) return sendHtml(reply, domainToolPage({}));
    return answer(
      request,
      reply,
      async () => {
        if (domain.trim() === '')
          throw new AppError('MISSING_DOMAIN', 'Enter a domain name, for example example.com.');
        const mtaSts = { allowLoopback: services.config.mtaStsAllowLoopback };
        const result = await checkDomain(domain.trim(), { dns: services.dns, clock: services.clock, mtaSts });
        // None of MX, SPF and DMARC could be read: 503 and "could not check", never a grade.
        const unavailable = dnsUnavailable(result, services.config.dnsServers);
        if (unavailable) throw unavailable;
        return result;
      },
      (r) => domainToolPage({ domain, resolvers: describeResolvers(services.config.dnsServers), ...r }),
    );
  });

  scope.get('/tools/headers', { config: none, schema: hidden }, async (_request, reply) =>
    sendHtml(reply, headersToolPage({})),
  );
  scope.post('/tools/headers', { config: none, schema: hidden }, async (request, reply) => {
    const headers = textField(request.body, 'headers') ?? '';
    return answer(
      request,
      reply,
      async () =>
        analyzeHeaders(checkHeadersInput(headers), {
          clock: services.clock,
          enrich: services.enrichIp,
          dmarcPolicy: (domain) => lookupDmarcPolicy(domain, { dns: services.dns, clock: services.clock }),
          trustedAuthservIds: services.config.trustedAuthservIds,
        }),
      (r) => headersToolPage({ headers, ...r }),
    );
  });

  scope.get('/tools/blocklist', { config: none, schema: hidden }, async (request, reply) => {
    const ip = textField(request.query, 'ip');
    if (ip === undefined) return sendHtml(reply, blocklistToolPage({}));
    return answer(
      request,
      reply,
      // This instance's zone and the public lists (NETREP_DNSBL_CHECK_ZONES), as the API answers.
      async () => services.listCheck.check(ipOrThrow(ip)),
      (r) => blocklistToolPage({ ip, ...r }),
    );
  });
}

export function toolPageRoutes(app: HttpApp, services: HttpServices): void {
  const answer = answererOf(services.limits);
  app.register(async (scope) => {
    await scope.register(formbody, { bodyLimit: FORM_BODY_LIMIT });
    scope.setErrorHandler(answerPageError);
    infoPages(scope, services);
    toolForms(scope, services, answer);
  });
}
