/**
 * BIMI (draft-brand-indicators-for-message-identification): the `default._bimi.<domain>` TXT
 * record, `v=BIMI1` first, `l=` the SVG Tiny PS logo and `a=` the VMC, both https. Receivers show
 * a logo only for mail under DMARC enforcement, so the DMARC result decides `dmarc_ready`. The
 * logo and certificate are not fetched: their locations are checked. Earns no points.
 */
import type { DnsClient } from '../core/dns/index.ts';
import type { BimiResult } from './policy-types.ts';
import { forEachTag } from './tag-list.ts';
import { lookupTxt } from './txt-lookup.ts';
import type { DmarcResult } from './types.ts';

const isBimiRecord = (text: string) => /^[ \t]*v[ \t]*=[ \t]*bimi1/i.test(text);

/** Why an l= or a= location is not usable, or null. */
function locationProblem(tag: string, value: string, suffix: string): { error?: string; warning?: string } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { error: `${tag}= "${value}" is not a URL` };
  }
  if (url.protocol !== 'https:') return { error: `${tag}= must be an https: URL (found ${url.protocol})` };
  if (!url.pathname.toLowerCase().endsWith(suffix)) return { warning: `${tag}= does not end in ${suffix}` };
  return {};
}

function readLocation(result: BimiResult, tag: 'l' | 'a', value: string): void {
  if (value === '') {
    if (tag === 'l') result.declined = true;
    return;
  }
  if (value.includes(',')) result.errors.push(`${tag}= holds one URL (found a list)`);
  const problem = locationProblem(tag, value, tag === 'l' ? '.svg' : '.pem');
  if (problem.error) result.errors.push(problem.error);
  if (problem.warning) result.warnings.push(problem.warning);
  if (tag === 'l') result.logo_url = value;
  else result.authority_url = value;
}

function parseBimi(raw: string, result: BimiResult): void {
  if (!/^v=BIMI1[ \t]*(;|$)/.test(raw)) result.errors.push('the record must begin with exactly "v=BIMI1"');
  let hasL = false;
  forEachTag(
    raw,
    { lowerCaseNames: true, namePattern: /^[a-z][a-z0-9]*$/ },
    (name, value, index) => {
      if (name === 'v' && index === 0) return;
      if (name === 'l' || name === 'a') {
        hasL ||= name === 'l';
        readLocation(result, name, value);
      } else if (name === 'v') result.errors.push('v= must come first, once');
      else result.warnings.push(`unknown tag ${name}= ignored`);
    },
    (message) => result.errors.push(message),
  );
  if (!hasL) result.errors.push('the record has no l= tag (the logo location; empty to decline)');
}

/** DMARC at enforcement, as BIMI needs: p=quarantine at 100 % or p=reject. */
function dmarcReady(dmarc: DmarcResult): boolean {
  if (!dmarc.found || !dmarc.is_valid) return false;
  const policy = dmarc.effective_policy;
  return policy === 'reject' || (policy === 'quarantine' && dmarc.percentage === 100);
}

export async function checkBimi(domain: string, dns: DnsClient): Promise<BimiResult> {
  const result: BimiResult = {
    status: 'absent',
    record_domain: `default._bimi.${domain}`,
    raw: null,
    logo_url: null,
    authority_url: null,
    declined: false,
    dmarc_ready: false,
    is_valid: false,
    errors: [],
    warnings: [],
    recommendations: [],
  };
  const found = await lookupTxt(dns, result.record_domain, isBimiRecord);
  if (found.kind === 'error') {
    result.status = 'temperror';
    result.errors.push(`${found.message}; BIMI could not be checked`);
    return result;
  }
  if (found.kind === 'absent') return result;
  result.status = 'found';
  const [raw = '', ...others] = found.records;
  result.raw = raw;
  if (others.length > 0)
    result.errors.push(`${found.records.length} v=BIMI1 records; receivers use none of them`);
  parseBimi(raw, result);
  return result;
}

function advise(domain: string, result: BimiResult, dmarc: DmarcResult, recordErrors: string[]): string[] {
  if (result.status === 'temperror') return ['Could not check BIMI (DNS failure); retry later.'];
  const enforce = `BIMI needs DMARC at enforcement: set p=quarantine (pct=100) or p=reject in _dmarc.${domain} (now ${dmarc.found ? `p=${dmarc.effective_policy ?? 'invalid'}, pct=${dmarc.percentage}` : 'no DMARC record'}).`;
  if (result.status === 'absent')
    return result.dmarc_ready
      ? [
          `Publish BIMI to show your logo in supporting inboxes: a TXT record at ${result.record_domain} with "v=BIMI1; l=https://…/logo.svg; a=https://…/vmc.pem".`,
        ]
      : [];
  const out: string[] = [];
  if (!result.dmarc_ready) out.push(enforce);
  if (recordErrors.length > 0)
    out.push(`Fix the BIMI record at ${result.record_domain}: ${recordErrors.join('; ')}.`);
  if (!result.declined && result.authority_url === null && recordErrors.length === 0)
    out.push(
      'Add a= with a Verified Mark Certificate (VMC): most mailbox providers show BIMI logos only with one.',
    );
  return out;
}

/** Applies the DMARC prerequisite and writes the verdict and advice. */
export function finishBimi(domain: string, result: BimiResult, dmarc: DmarcResult): BimiResult {
  result.dmarc_ready = dmarcReady(dmarc);
  const recordErrors = [...result.errors];
  if (result.status === 'found' && !result.dmarc_ready)
    result.errors.push(
      'DMARC is not at enforcement (p=quarantine at pct=100 or p=reject); receivers ignore BIMI',
    );
  result.is_valid = result.status === 'found' && result.errors.length === 0;
  result.recommendations = advise(domain, result, dmarc, recordErrors);
  return result;
}
