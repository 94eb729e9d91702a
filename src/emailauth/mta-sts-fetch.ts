/**
 * Fetches an MTA-STS policy (RFC 8461 §3.3): `https://mta-sts.<domain>/.well-known/mta-sts.txt`
 * over a valid certificate for that name, no redirects followed, 64 KiB at most, one deadline for
 * the whole exchange. The host is resolved through the check's DNS and every address must pass
 * the webhook targets' guard (webhooks' refusedReach: no loopback, private, link-local, CGNAT,
 * reserved...) before any connection; the request goes to the checked address itself, so a second
 * resolution cannot change the target. Only the test-only loopback setting lets 127.0.0.0/8 and
 * ::1 through.
 */
import https from 'node:https';
import tls from 'node:tls';
import type { DnsClient } from '../core/dns/index.ts';
import { isAbsent, isDnsError } from '../core/dns/index.ts';
import { parseIp } from '../core/ip.ts';
import { isLoopback, refusedReach } from '../webhooks/index.ts';

/** RFC 8461 §3.3 lets senders stop at 64 KiB; so does the check. */
export const MAX_POLICY_BYTES = 64 * 1024;
export const POLICY_FETCH_TIMEOUT_MS = 5000;

export interface PolicyFetchOptions {
  /** NETREP_MTA_STS_ALLOW_LOOPBACK (tests only): the policy server may be on 127.0.0.0/8 or ::1. */
  allowLoopback?: boolean;
  /** Extra trusted CA certificates (PEM), on top of Node's roots: tests and private PKI. */
  ca?: string;
  /** 443 (RFC 8461); tests point it at their server's port. */
  port?: number;
  timeoutMs?: number;
}

export interface FetchedPolicy {
  address: string | null;
  httpStatus: number | null;
  contentType: string | null;
  body: string | null;
  error: string | null;
}

function failed(
  error: string,
  address: string | null = null,
  httpStatus: number | null = null,
): FetchedPolicy {
  return { address, httpStatus, contentType: null, body: null, error };
}

/** The address to connect to, or why none may be. Every address of the name must pass. */
async function resolvePolicyHost(
  dns: DnsClient,
  host: string,
  allowLoopback: boolean,
): Promise<{ address: string } | { error: string }> {
  const answers = await Promise.allSettled([dns.a(host), dns.aaaa(host)]);
  const addresses = answers.flatMap((a) => (a.status === 'fulfilled' ? a.value : []));
  if (addresses.length === 0) {
    const err = answers
      .map((a) => (a.status === 'rejected' ? a.reason : null))
      .find((e) => e && !isAbsent(e));
    if (err) return { error: `DNS ${isDnsError(err) ? err.code : 'error'} while looking up ${host}` };
    return { error: `${host} does not resolve` };
  }
  for (const address of addresses) {
    const ip = parseIp(address);
    if (ip && allowLoopback && isLoopback(ip)) continue;
    const why = refusedReach(address);
    if (why) return { error: `fetching the policy from ${host} refused: ${why}` };
  }
  return { address: addresses[0] as string };
}

function tlsProblem(host: string, err: Error & { code?: string }): string {
  const code = err.code ?? '';
  if (/CERT|SELF_SIGNED|ALTNAME|UNABLE_TO|ISSUER/.test(code))
    return `the certificate of ${host} is not valid (${code}: ${err.message})`;
  return `fetching the policy from ${host} failed: ${err.message}`;
}

/** GET the policy from `address` for `host`; never throws. */
function request(host: string, address: string, options: PolicyFetchOptions): Promise<FetchedPolicy> {
  const timeoutMs = options.timeoutMs ?? POLICY_FETCH_TIMEOUT_MS;
  return new Promise((resolve) => {
    let done = false;
    const finish = (r: FetchedPolicy) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      resolve(r);
    };
    const req = https.request({
      host: address,
      port: options.port ?? 443,
      path: '/.well-known/mta-sts.txt',
      method: 'GET',
      servername: host,
      headers: { host, 'user-agent': 'netrep-mta-sts-check', accept: 'text/plain' },
      agent: false,
      ...(options.ca ? { ca: [...tls.rootCertificates, options.ca] } : {}),
    });
    const timer = setTimeout(
      () => finish(failed(`fetching the policy from ${host} took over ${timeoutMs} ms`, address)),
      timeoutMs,
    );
    req.on('error', (err) => finish(failed(tlsProblem(host, err), address)));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        const to = res.headers.location ? ` to ${res.headers.location}` : '';
        finish(
          failed(
            `the policy URL answered ${status}, a redirect${to}; redirects are not followed (RFC 8461 §3.3)`,
            address,
            status,
          ),
        );
        return;
      }
      if (status !== 200) {
        finish(failed(`the policy URL answered HTTP ${status}`, address, status));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_POLICY_BYTES)
          finish(
            failed(
              `the policy is larger than ${MAX_POLICY_BYTES} bytes (RFC 8461 §3.3 limit)`,
              address,
              status,
            ),
          );
        else chunks.push(chunk);
      });
      res.on('error', (err) => finish(failed(tlsProblem(host, err), address, status)));
      res.on('end', () => {
        const contentType = res.headers['content-type'] ?? null;
        finish({
          address,
          httpStatus: status,
          contentType,
          body: Buffer.concat(chunks).toString('utf8'),
          error: null,
        });
      });
    });
    req.end();
  });
}

/** Resolves, guards and fetches `mta-sts.<domain>`'s policy. */
export async function fetchPolicy(
  domain: string,
  dns: DnsClient,
  options: PolicyFetchOptions = {},
): Promise<FetchedPolicy> {
  const host = `mta-sts.${domain}`;
  const target = await resolvePolicyHost(dns, host, options.allowLoopback === true);
  if ('error' in target) return failed(target.error);
  return request(host, target.address, options);
}
