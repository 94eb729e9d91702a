/**
 * The many-blocklists check (issue 36 item 6): one address asked of this instance's own zone
 * (from the blocklist itself) and of every public DNSBL of NETREP_DNSBL_CHECK_ZONES (through
 * NETREP_DNS_SERVERS, test points first, answers cached). Anonymous, in the `public` bucket.
 */
import { AppError } from '../../core/errors.ts';
import { parseIp } from '../../core/ip.ts';
import { BlocklistsAnswer } from '../../listcheck/index.ts';
import type { HttpApp, HttpServices } from '../context.ts';
import { checkPublicBlocklistsExample } from '../examples/blocklists.ts';
import { envelope, errorResponses, IpParam } from '../schemas.ts';

export function blocklistsCheckRoutes(app: HttpApp, services: HttpServices): void {
  app.get(
    '/v1/public/blocklists/ip/:ip',
    {
      config: { access: { kind: 'public', bucket: 'public' } },
      schema: {
        operationId: 'checkPublicBlocklists',
        examples: checkPublicBlocklistsExample,
        tags: ['blocklist'],
        summary:
          'Is this address on this instance’s blocklist and on the public DNSBLs (Spamhaus ZEN, SpamCop, Barracuda …)? (anonymous, 60/min per client IP)',
        description:
          'Each public list of NETREP_DNSBL_CHECK_ZONES is asked in parallel through NETREP_DNS_SERVERS after its RFC 5782 test points (127.0.0.2 listed, 127.0.0.1 not). A refusal code (Spamhaus 127.255.255.252/254/255) is `refused`; no answer in time or a failed test point is `unavailable`. Answers are cached per list and address (a listing for its TTL, at most NETREP_DNSBL_CHECK_CACHE_SECONDS).',
        params: IpParam,
        response: { 200: envelope(BlocklistsAnswer), ...errorResponses('INVALID_IP', 'STORE_UNAVAILABLE') },
      },
    },
    async (request) => {
      const parsed = parseIp(request.params.ip);
      if (!parsed) throw new AppError('INVALID_IP', `invalid IP address: ${request.params.ip.slice(0, 64)}`);
      return { data: await services.listCheck.check(parsed.address) };
    },
  );
}
