/**
 * SMTP TLS reporting (RFC 8460 §3): the `_smtp._tls.<domain>` TXT record, `v=TLSRPTv1` first
 * and exactly, `rua=` with mailto: or https: URIs. Earns no points (CONTRACT §8).
 */
import type { DnsClient } from '../core/dns/index.ts';
import type { TlsRptResult } from './policy-types.ts';
import { forEachTag } from './tag-list.ts';
import { commaList, lookupTxt } from './txt-lookup.ts';

const MAILTO = /^mailto:[^@\s,;!]+@[a-z0-9-]+(\.[a-z0-9-]+)+$/i;

/** Records that mean to be TLS-RPT (a loosely written version counts, and is then an error). */
const isTlsRptRecord = (text: string) => /^[ \t]*v[ \t]*=[ \t]*tlsrptv1/i.test(text);

function httpsUri(uri: string): boolean {
  try {
    const url = new URL(uri);
    return url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

function readRua(value: string, result: TlsRptResult): void {
  result.rua = commaList(value);
  if (result.rua.length === 0) result.errors.push('rua= is empty');
  for (const uri of result.rua) {
    if (!MAILTO.test(uri) && !httpsUri(uri))
      result.errors.push(`rua= URI "${uri}" is neither mailto: nor https:`);
  }
}

/** Fills `result` from one record's text. */
function parseTlsRpt(raw: string, result: TlsRptResult): void {
  let hasRua = false;
  if (!/^v=TLSRPTv1[ \t]*(;|$)/.test(raw))
    result.errors.push('the record must begin with exactly "v=TLSRPTv1"');
  forEachTag(
    raw,
    { namePattern: /^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/ },
    (name, value, index) => {
      if (index === 0 && name === 'v') return;
      if (name === 'rua') {
        hasRua = true;
        readRua(value, result);
      } else if (name === 'v') result.errors.push('v= must come first, once');
      else result.warnings.push(`unknown field ${name}= ignored`);
    },
    (message) => result.errors.push(message),
  );
  if (!hasRua) result.errors.push('the record has no rua= field');
}

export async function checkTlsRpt(domain: string, dns: DnsClient): Promise<TlsRptResult> {
  const result: TlsRptResult = {
    status: 'absent',
    record_domain: `_smtp._tls.${domain}`,
    raw: null,
    rua: [],
    is_valid: false,
    errors: [],
    warnings: [],
    recommendations: [],
  };
  const found = await lookupTxt(dns, result.record_domain, isTlsRptRecord);
  if (found.kind === 'error') {
    result.status = 'temperror';
    result.errors.push(`${found.message}; TLS-RPT could not be checked`);
    result.recommendations.push('Could not check TLS-RPT (DNS failure); retry later.');
    return result;
  }
  if (found.kind === 'absent') {
    result.recommendations.push(
      `Publish TLS-RPT (RFC 8460): a TXT record at ${result.record_domain} such as "v=TLSRPTv1; rua=mailto:tls-reports@${domain}", so sending servers report TLS failures reaching you.`,
    );
    return result;
  }
  result.status = 'found';
  const [raw = '', ...others] = found.records;
  result.raw = raw;
  // RFC 8460 §3: other than exactly one record, senders assume no TLS-RPT.
  if (others.length > 0)
    result.errors.push(`${found.records.length} v=TLSRPTv1 records; senders use none of them`);
  parseTlsRpt(raw, result);
  result.is_valid = result.errors.length === 0;
  if (!result.is_valid)
    result.recommendations.push(
      `Fix the TLS-RPT record at ${result.record_domain}: ${result.errors.join('; ')}.`,
    );
  return result;
}
