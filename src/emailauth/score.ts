/**
 * Score, grade and recommendations (spec §2.7, CONTRACT §8). Pure: facts in, points and
 * deterministic advice out. Every point lost has a recommendation that names it. A record that
 * could not be checked (`dns_status: temperror`, issue 31) earns no points and is never advised
 * to be published or fixed: its recommendation says it could not be checked and to retry.
 */
import type { DkimResult, DmarcResult, DnsStats, DnsStatus, MxResult, SpfResult } from './types.ts';

export const MAX_POINTS = { mx: 10, spf: 25, dkim: 30, dmarc: 35 } as const;

export interface ScoreInput {
  domain: string;
  mx: MxResult;
  spf: SpfResult;
  dkim: DkimResult[];
  /** Probed selectors whose lookup failed (default ones are not in `dkim`). */
  dkimUnread: DkimResult[];
  /** What the DNS said about each of the domain's own records (temperror: could not check). */
  status: { mx: DnsStatus; spf: DnsStatus; dmarc: DnsStatus };
  /** MX hosts whose address lookups failed (not "does not resolve": unknown). */
  mxUnreadHosts: string[];
  /** Selectors probed (to name them when none was found). */
  selectors: string[];
  dmarc: DmarcResult;
  dns: DnsStats;
}

export interface Score {
  score: number;
  grade: 'A' | 'B' | 'C' | 'D' | 'F';
  points: { mx: number; spf: number; dkim: number; dmarc: number };
  recommendations: string[];
}

export function gradeFor(score: number): Score['grade'] {
  if (score >= 90) return 'A';
  if (score >= 75) return 'B';
  if (score >= 55) return 'C';
  if (score >= 35) return 'D';
  return 'F';
}

const lost = (n: number) => `${n} point${n === 1 ? '' : 's'} lost`;

/** The advice for a record that could not be read: say so, advise nothing about it. */
function couldNotCheck(what: string, why: string | undefined, points: number): string {
  return `Could not check ${what}${why ? ` (${why})` : ''}: nothing is advised about a record that could not be checked; retry later (${points} points not counted).`;
}

function scoreMx(mx: MxResult, input: ScoreInput, recs: string[]): number {
  const domain = input.domain;
  if (mx.is_valid) {
    for (const host of mx.hosts)
      if (!host.resolves && !input.mxUnreadHosts.includes(host.exchange))
        recs.push(`MX host ${host.exchange} does not resolve; remove it or publish its address.`);
    return MAX_POINTS.mx;
  }
  if (input.status.mx === 'temperror') {
    const why = mx.errors.filter((e) => e.startsWith('DNS '));
    recs.push(couldNotCheck('MX', why.join('; ') || undefined, MAX_POINTS.mx));
    return 0;
  }
  if (mx.null_mx && mx.records.length === 0) {
    recs.push(
      `MX: ${domain} publishes a null MX (RFC 7505) and accepts no mail; if it should receive mail, publish real MX hosts (${lost(MAX_POINTS.mx)}).`,
    );
  } else if (mx.records.length === 0) {
    recs.push(`MX: publish at least one MX record for ${domain} (${lost(MAX_POINTS.mx)}).`);
  } else {
    recs.push(
      `MX: none of the MX hosts (${mx.records.join(', ')}) resolves to an address; fix their A/AAAA records (${lost(MAX_POINTS.mx)}).`,
    );
  }
  return 0;
}

const isTemperror = (e: string) => e.startsWith('temperror:');

function scoreSpf(spf: SpfResult, status: DnsStatus, domain: string, recs: string[]): number {
  if (status === 'temperror') {
    const why = spf.validation_errors.filter(isTemperror).map((e) => e.slice('temperror: '.length));
    recs.push(
      couldNotCheck(
        spf.found ? 'SPF (the record was read, a lookup it needs was not)' : 'SPF',
        why.join('; ') || undefined,
        MAX_POINTS.spf,
      ),
    );
    return 0;
  }
  if (!spf.found && spf.record_count === 0) {
    recs.push(
      `SPF: publish one TXT record "v=spf1 <your senders> -all" at ${domain} (${lost(MAX_POINTS.spf)}).`,
    );
    return 0;
  }
  if (spf.record_count > 1) {
    recs.push(
      `SPF: merge the ${spf.record_count} v=spf1 records into one; several records are a permerror (${lost(MAX_POINTS.spf)}).`,
    );
    return 0;
  }
  if (spf.exceeds_lookups) {
    recs.push(
      `SPF: the policy needs ${spf.dns_lookup_count} DNS lookups, over the RFC 7208 limit of 10, so receivers return permerror; flatten or remove includes (${lost(MAX_POINTS.spf)}).`,
    );
    return 0;
  }
  if (!spf.is_valid) {
    // Only what was read is advised on; lookups that failed are not the record's fault.
    const faults = spf.validation_errors.filter((e) => !isTemperror(e));
    recs.push(`SPF: fix the record: ${faults.join('; ')} (${lost(MAX_POINTS.spf)}).`);
    return 0;
  }
  switch (spf.all_qualifier) {
    case '-':
      return MAX_POINTS.spf;
    case '~':
      recs.push(
        `SPF ends in ~all (softfail); once all senders are listed, use -all (${lost(MAX_POINTS.spf - 18)}).`,
      );
      return 18;
    case '+':
      recs.push(
        `SPF ends in +all, which authorizes every host on the internet to send as ${domain}; use -all (${lost(MAX_POINTS.spf)}).`,
      );
      return 0;
    default:
      recs.push(
        `SPF ${spf.all_qualifier === '?' ? 'ends in ?all (neutral)' : 'has no all mechanism, so unlisted hosts get neutral'}; end it with -all (${lost(MAX_POINTS.spf - 8)}).`,
      );
      return 8;
  }
}

/** What each selector's record says that a sender should fix. */
function dkimSelectorNotes(dkim: DkimResult[], unread: DkimResult[], recs: string[]): void {
  for (const d of dkim) {
    const broken = d.found ? !d.is_valid : !unread.includes(d) && d.validation_errors.length > 0;
    if (broken) recs.push(`DKIM selector ${d.selector}: ${d.validation_errors.join('; ')}.`);
    if (d.testing)
      recs.push(`DKIM selector ${d.selector} has t=y (testing); remove the flag once signing works.`);
  }
}

function unreadSelectors(unread: DkimResult[]): { names: string; why: string; note: string } {
  const names = unread.map((d) => d.selector).join(', ');
  const why = unread.flatMap((d) => d.validation_errors).join('; ');
  const note = `DKIM selector${unread.length === 1 ? '' : 's'} ${names} could not be checked (${why}).`;
  return { names, why, note };
}

function scoreDkim(dkim: DkimResult[], unread: DkimResult[], selectors: string[], recs: string[]): number {
  const valid = dkim.filter((d) => d.is_valid);
  const strong = valid.find((d) => d.key_type === 'ed25519' || (d.key_bits ?? 0) >= 2048);
  dkimSelectorNotes(dkim, unread, recs);
  const missed = unreadSelectors(unread);
  if (!strong && valid.length === 0 && unread.length > 0) {
    const what = `DKIM at selector${unread.length === 1 ? '' : 's'} ${missed.names}`;
    recs.push(couldNotCheck(what, missed.why, MAX_POINTS.dkim));
    return 0;
  }
  if (unread.length > 0) recs.push(missed.note);
  if (strong) return MAX_POINTS.dkim;
  const medium = valid.find((d) => d.key_type === 'rsa' && (d.key_bits ?? 0) >= 1024);
  if (medium) {
    recs.push(
      `DKIM selector ${medium.selector} uses a ${medium.key_bits}-bit RSA key; rotate to 2048-bit RSA or ed25519 (${lost(MAX_POINTS.dkim - 15)}).`,
    );
    return 15;
  }
  recs.push(
    `DKIM: no valid key found at selectors ${selectors.join(', ')}; publish a 2048-bit RSA or ed25519 key (${lost(MAX_POINTS.dkim)}).`,
  );
  return 0;
}

/** Points for the policy in force and its rollout percentage (CONTRACT §8), with the next step. */
function dmarcPolicyPoints(dmarc: DmarcResult, recs: string[]): number {
  const pct = dmarc.percentage;
  const where = dmarc.inherited ? `sp= of ${dmarc.record_domain}` : 'p=';
  switch (dmarc.effective_policy) {
    case 'reject': {
      const points = pct >= 100 ? 35 : 25;
      if (pct < 100)
        recs.push(
          `DMARC applies reject to only ${pct} % of failing mail; raise pct to 100 (${lost(35 - points)}).`,
        );
      return points;
    }
    case 'quarantine': {
      const points = pct >= 100 ? 25 : 18;
      recs.push(
        pct >= 100
          ? `DMARC ${where}quarantine: move to reject (${lost(35 - points)}).`
          : `DMARC ${where}quarantine applies to only ${pct} % of failing mail; raise pct to 100, then move to reject (${lost(35 - points)}).`,
      );
      return points;
    }
    default:
      recs.push(`DMARC ${where}none only monitors; move to quarantine, then reject (${lost(35 - 10)}).`);
      return 10;
  }
}

function scoreDmarc(dmarc: DmarcResult, status: DnsStatus, domain: string, recs: string[]): number {
  if (status === 'temperror') {
    recs.push(couldNotCheck('DMARC', dmarc.validation_errors.join('; ') || undefined, MAX_POINTS.dmarc));
    return 0;
  }
  if (!dmarc.found) {
    recs.push(
      `DMARC: publish "v=DMARC1; p=reject; rua=mailto:..." at _dmarc.${domain} (${lost(MAX_POINTS.dmarc)}).`,
    );
    return 0;
  }
  if (!dmarc.is_valid) {
    recs.push(
      `DMARC: fix the record at _dmarc.${dmarc.record_domain}: ${dmarc.validation_errors.join('; ')} (${lost(MAX_POINTS.dmarc)}).`,
    );
    return 0;
  }
  const points = dmarcPolicyPoints(dmarc, recs);
  if (dmarc.no_visibility)
    recs.push(
      'DMARC has no rua= address: add rua=mailto:... to receive aggregate reports (no points, but no visibility).',
    );
  if (dmarc.inherited)
    recs.push(`DMARC record inherited from the organizational domain ${dmarc.record_domain}.`);
  for (const w of dmarc.warnings) recs.push(`DMARC: ${w}.`);
  return points;
}

export function scoreDomain(input: ScoreInput): Score {
  const recs: string[] = [];
  if (input.dns.deadline_exceeded) {
    recs.push(
      `DNS: the ${input.dns.deadline_ms / 1000} s deadline passed before every answer arrived; results may be incomplete, retry later.`,
    );
  }
  if (input.dns.budget_exhausted) {
    recs.push(
      `DNS: the budget of ${input.dns.max_lookups} lookups was spent; some records were not checked.`,
    );
  }
  const points = {
    mx: scoreMx(input.mx, input, recs),
    spf: scoreSpf(input.spf, input.status.spf, input.domain, recs),
    dkim: scoreDkim(input.dkim, input.dkimUnread, input.selectors, recs),
    dmarc: scoreDmarc(input.dmarc, input.status.dmarc, input.domain, recs),
  };
  for (const w of input.spf.warnings) recs.push(`SPF: ${w}.`);
  const score = Math.max(0, Math.min(100, points.mx + points.spf + points.dkim + points.dmarc));
  return { score, grade: gradeFor(score), points, recommendations: recs };
}
