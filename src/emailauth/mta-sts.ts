/**
 * MTA-STS (RFC 8461): the `_mta-sts.<domain>` TXT record, the policy fetched over HTTPS
 * (mta-sts-fetch.ts), the MX hosts the check resolved against the policy's mx: patterns, and
 * what to do about it. Earns no points (CONTRACT §8 fixes the score).
 */
import type { DnsClient } from '../core/dns/index.ts';
import { fetchPolicy, type PolicyFetchOptions } from './mta-sts-fetch.ts';
import { isStsRecord, mxMatches, parsePolicy, parseStsRecord } from './mta-sts-parse.ts';
import type { MtaStsPolicy, MtaStsResult } from './policy-types.ts';
import { lookupTxt } from './txt-lookup.ts';
import type { MxResult } from './types.ts';

export type { PolicyFetchOptions } from './mta-sts-fetch.ts';

/** Below a day a policy barely outlives a sender's cache; RFC 8461 §3.2 suggests weeks. */
const SHORT_MAX_AGE = 86_400;

function emptyPolicy(domain: string): MtaStsPolicy {
  return {
    url: `https://mta-sts.${domain}/.well-known/mta-sts.txt`,
    address: null,
    http_status: null,
    fetched: false,
    version: null,
    mode: null,
    mx: [],
    max_age: null,
    is_valid: false,
    errors: [],
  };
}

async function readPolicy(
  domain: string,
  dns: DnsClient,
  options: PolicyFetchOptions,
): Promise<{ policy: MtaStsPolicy; warnings: string[] }> {
  const policy = emptyPolicy(domain);
  const fetched = await fetchPolicy(domain, dns, options);
  policy.address = fetched.address;
  policy.http_status = fetched.httpStatus;
  if (fetched.error !== null || fetched.body === null) {
    policy.errors.push(fetched.error ?? 'no policy was read');
    return { policy, warnings: [] };
  }
  policy.fetched = true;
  const mediaType = (fetched.contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'text/plain')
    policy.errors.push(
      `the policy's media type is "${fetched.contentType ?? 'none'}"; it must be text/plain (RFC 8461 §3.2)`,
    );
  const parsed = parsePolicy(fetched.body);
  Object.assign(policy, {
    version: parsed.version,
    mode: parsed.mode,
    mx: parsed.mx,
    max_age: parsed.max_age,
  });
  policy.errors.push(...parsed.errors);
  policy.is_valid = policy.errors.length === 0;
  return { policy, warnings: parsed.warnings };
}

/** The record and, when one is published, the policy; MX matching and advice come with `finishMtaSts`. */
export async function checkMtaSts(
  domain: string,
  dns: DnsClient,
  options: PolicyFetchOptions = {},
): Promise<MtaStsResult> {
  const result: MtaStsResult = {
    status: 'absent',
    record_domain: `_mta-sts.${domain}`,
    raw: null,
    id: null,
    record_valid: false,
    policy: null,
    unmatched_mx: [],
    is_valid: false,
    errors: [],
    warnings: [],
    recommendations: [],
  };
  const found = await lookupTxt(dns, result.record_domain, isStsRecord);
  if (found.kind === 'error') {
    result.status = 'temperror';
    result.errors.push(`${found.message}; MTA-STS could not be checked`);
    return result;
  }
  if (found.kind === 'absent') return result;
  result.status = 'found';
  const [raw = '', ...others] = found.records;
  result.raw = raw;
  const parsed = parseStsRecord(raw);
  result.id = parsed.id;
  // RFC 8461 §3.1: more than one record means senders see no policy.
  if (others.length > 0)
    result.errors.push(
      `${found.records.length} v=STSv1 records at ${result.record_domain}; senders use none of them`,
    );
  result.errors.push(...parsed.errors);
  result.record_valid = result.errors.length === 0;
  const { policy, warnings } = await readPolicy(domain, dns, options);
  result.policy = policy;
  result.warnings.push(...warnings);
  return result;
}

function matchMx(result: MtaStsResult, mx: MxResult): void {
  const policy = result.policy;
  if (!policy?.fetched || policy.mode === 'none' || policy.mode === null) return;
  result.unmatched_mx = mx.records.filter((host) => !policy.mx.some((p) => mxMatches(host, p)));
  if (result.unmatched_mx.length > 0)
    result.errors.push(`MX hosts not matched by any mx: pattern: ${result.unmatched_mx.join(', ')}`);
}

function advise(domain: string, result: MtaStsResult): string[] {
  const policy = result.policy;
  const url = policy?.url ?? emptyPolicy(domain).url;
  if (result.status === 'temperror') return ['Could not check MTA-STS (DNS failure); retry later.'];
  if (result.status === 'absent')
    return [
      `Publish MTA-STS (RFC 8461): a TXT record at _mta-sts.${domain} ("v=STSv1; id=<version>") and a policy at ${url}, so sending servers require TLS with a valid certificate to your MX hosts.`,
    ];
  const out: string[] = [];
  if (!result.record_valid)
    out.push(
      `Fix the TXT record at ${result.record_domain}: it must read exactly "v=STSv1; id=<1-32 letters and digits>" and be the only one.`,
    );
  if (policy && !policy.is_valid) out.push(`Fix the MTA-STS policy at ${url}: ${policy.errors.join('; ')}.`);
  if (result.unmatched_mx.length > 0)
    out.push(
      `Add mx: lines for ${result.unmatched_mx.join(', ')} to the MTA-STS policy, or senders enforcing it will not deliver to them.`,
    );
  if (policy?.mode === 'testing' && policy.is_valid && result.unmatched_mx.length === 0)
    out.push(
      'The MTA-STS policy is in testing mode: once TLS reports show no failures, switch it to mode: enforce.',
    );
  if (policy?.mode === 'none')
    out.push('The MTA-STS policy has mode: none (withdrawn): senders do not require TLS.');
  if (
    policy?.max_age !== null &&
    policy?.max_age !== undefined &&
    policy.max_age < SHORT_MAX_AGE &&
    policy.mode === 'enforce'
  )
    out.push(
      `Raise the MTA-STS max_age (${policy.max_age} s) to at least a week (604800), so senders keep the policy between visits.`,
    );
  return out;
}

/** Matches the resolved MX hosts against the policy and writes the verdict and advice. */
export function finishMtaSts(domain: string, result: MtaStsResult, mx: MxResult): MtaStsResult {
  matchMx(result, mx);
  const mode = result.policy?.mode;
  result.is_valid =
    result.record_valid &&
    result.policy?.is_valid === true &&
    (mode === 'enforce' || mode === 'testing') &&
    result.unmatched_mx.length === 0;
  result.recommendations = advise(domain, result);
  return result;
}
