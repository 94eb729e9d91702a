import type { Clock } from '../core/clock.ts';
import { isPublicIp, parseIp } from '../core/ip.ts';
import { addressDomain, decodeWords } from './addresses.ts';
import { type ChainEntry, findAnomalies } from './anomalies.ts';
import { parseTags } from './auth-results.ts';
import { readAuthentication } from './authentication.ts';
import { fieldValues, splitHeaderBlock } from './header-block.ts';
import { MAX_ENRICHED_HOPS } from './limits.ts';
import { formatDelay, toRfc3339 } from './mail-date.ts';
import { parseReceived } from './received.ts';
import type { HeaderAnalysis, Hop, HopEnrichment } from './types.ts';

export interface AnalyzeOptions {
  clock: Clock;
  /** Intel for one public hop IP; called at most once per distinct IP, for at most 20 hops. */
  enrich?: (ip: string) => HopEnrichment | null | Promise<HopEnrichment | null>;
  /** Published DMARC policy (p=) of the From domain; when absent, `dmarc_policy` is omitted. */
  dmarcPolicy?: (domain: string) => Promise<string | null>;
  /**
   * authserv-ids of Authentication-Results headers to trust (NETREP_TRUSTED_AUTHSERV_IDS, RFC 8601
   * §5). Empty or absent: the top-most header's authserv-id.
   */
  trustedAuthservIds?: readonly string[];
}

const NO_ENRICHMENT: HopEnrichment = {
  asn: null,
  asn_name: null,
  country: null,
  cloud_provider: null,
  connection_type: null,
  threat_score: null,
};
const MAX_TEXT_FIELD = 512;

function firstDecoded(values: string[]): string | null {
  const v = values[0];
  if (v === undefined) return null;
  const text = decodeWords(v).trim().slice(0, MAX_TEXT_FIELD);
  return text.length > 0 ? text : null;
}

/** The delivery path: Received headers bottom-up, each with its delay from the last dated hop. */
function buildChain(values: string[]): ChainEntry[] {
  const chain: ChainEntry[] = [];
  let previous: number | null = null;
  for (let k = values.length - 1; k >= 0; k--) {
    const raw = values[k] as string;
    const hop = parseReceived(raw);
    const delaySeconds =
      hop.time !== null && previous !== null ? Math.round((hop.time - previous) / 1000) : null;
    if (hop.time !== null) previous = hop.time;
    chain.push({ hop, raw, delaySeconds });
  }
  return chain;
}

async function enrichChain(
  chain: readonly ChainEntry[],
  enrich: AnalyzeOptions['enrich'],
): Promise<HopEnrichment[]> {
  const out = chain.map(() => NO_ENRICHMENT);
  if (!enrich) return out;
  const cache = new Map<string, Promise<HopEnrichment | null>>();
  // Spec rule 5: at most 20 hops. The ones nearest the recipient are enriched, because forged
  // Received headers can only be added below the real ones.
  const first = Math.max(0, chain.length - MAX_ENRICHED_HOPS);
  await Promise.all(
    chain.slice(first).map(async (entry, offset) => {
      const ip = entry.hop.fromIp;
      if (!ip || !isPublicIp(ip)) return;
      let pending = cache.get(ip.address);
      if (!pending) {
        pending = Promise.resolve()
          .then(() => enrich(ip.address))
          .catch(() => null);
        cache.set(ip.address, pending);
      }
      out[first + offset] = (await pending) ?? NO_ENRICHMENT;
    }),
  );
  return out;
}

export async function analyzeHeaders(raw: string, options: AnalyzeOptions): Promise<HeaderAnalysis> {
  const fields = splitHeaderBlock(raw);
  const chain = buildChain(fieldValues(fields, 'received'));
  const enrichment = await enrichChain(chain, options.enrich);

  const received_chain: Hop[] = chain.map(({ hop, delaySeconds }, i) => ({
    from_host: hop.fromHost,
    from_ip: hop.fromIp?.address ?? null,
    by_host: hop.byHost,
    protocol: hop.protocol,
    protocol_raw: hop.protocolRaw,
    timestamp: hop.time === null ? null : toRfc3339(hop.time),
    delay: delaySeconds === null ? null : formatDelay(delaySeconds),
    delay_seconds: delaySeconds,
    parsed: hop.recognized,
    ...(enrichment[i] ?? NO_ENRICHMENT),
  }));

  const fromDomain = addressDomain(fieldValues(fields, 'from')[0] ?? '');
  const returnPath = fieldValues(fields, 'return-path')[0];
  const returnPathDomain = returnPath === undefined ? null : addressDomain(returnPath);
  // The receiving host is the by-host of the top-most Received header that names one.
  // Gmail's internal hops name an IPv6 address ("by 2002:a17:..."), which no authserv-id matches.
  const receivingHost =
    [...chain].reverse().find((e) => e.hop.byHost !== null && parseIp(e.hop.byHost) === null)?.hop.byHost ??
    null;
  const authentication = readAuthentication(fields, receivingHost, fromDomain, options.trustedAuthservIds);
  if (options.dmarcPolicy && fromDomain !== null) {
    authentication.dmarc_policy = await options.dmarcPolicy(fromDomain).catch(() => null);
  }

  const dkimDomains = fieldValues(fields, 'dkim-signature')
    .map((v) => addressDomain(`x@${parseTags(v)['d'] ?? ''}`))
    .filter((d): d is string => d !== null);
  const anomalies = findAnomalies({
    chain,
    now: options.clock(),
    hasDate: fields.some((f) => f.name === 'date'),
    hasMessageId: fields.some((f) => f.name === 'message-id'),
    fromDomain,
    returnPathDomain,
    dkimDomains,
  });

  return {
    received_chain,
    authentication,
    infrastructure: {
      origin_ip: chain.find((e) => e.hop.fromIp)?.hop.fromIp?.address ?? null,
      origin_public_ip:
        chain.find((e) => e.hop.fromIp && isPublicIp(e.hop.fromIp))?.hop.fromIp?.address ?? null,
      from_domain: fromDomain,
      return_path_domain: returnPathDomain,
      x_mailer: firstDecoded(fieldValues(fields, 'x-mailer')),
      user_agent: firstDecoded(fieldValues(fields, 'user-agent')),
    },
    anomalies,
  };
}
