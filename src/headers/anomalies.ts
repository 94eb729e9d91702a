import { ipRange, isPublicIp, type ParsedIp } from '../core/ip.ts';
import { aligned, orgDomain } from './addresses.ts';
import { formatDelay } from './mail-date.ts';
import type { ReceivedHop } from './received.ts';

/** A hop in delivery order with what the anomaly rules need. */
export interface ChainEntry {
  hop: ReceivedHop;
  /** Received header text, for naming unreadable lines. */
  raw: string;
  delaySeconds: number | null;
}

export interface AnomalyFacts {
  chain: readonly ChainEntry[];
  now: number;
  hasDate: boolean;
  hasMessageId: boolean;
  fromDomain: string | null;
  returnPathDomain: string | null;
  dkimDomains: readonly string[];
}

/** Unreadable Received headers named individually; the rest are counted in one sentence. */
export const MAX_NAMED_UNREADABLE = 10;

/** Clock skew we accept before calling a hop date "in the future". */
export const FUTURE_TOLERANCE_MS = 5 * 60_000;

function label(n: number, hop: ReceivedHop): string {
  return hop.byHost ? `Hop ${n} (by ${hop.byHost})` : `Hop ${n}`;
}

function quote(raw: string): string {
  const t = raw.replace(/[^\x20-\x7e]/g, '?');
  return t.length > 60 ? `${t.slice(0, 57)}...` : t;
}

function isPrivateSender(ip: ParsedIp): boolean {
  const range = ipRange(ip);
  return (
    range === 'private' || range === 'uniqueLocal' || range === 'linkLocal' || range === 'carrierGradeNat'
  );
}

/**
 * A private address can only reach a server on the same private network. A hop from one to a
 * relay that records a public address for itself, or that belongs to another organization and
 * records no private address, is out of place.
 */
function privateToPublic(hop: ReceivedHop): boolean {
  if (!hop.fromIp || !isPrivateSender(hop.fromIp)) return false;
  if (hop.byIp) return isPublicIp(hop.byIp);
  if (!hop.fromHost || !hop.byHost || !hop.fromHost.includes('.') || !hop.byHost.includes('.')) return false;
  return orgDomain(hop.fromHost.toLowerCase()) !== orgDomain(hop.byHost.toLowerCase());
}

/** What is odd about one recognised hop: its date, and private addresses where public ones belong. */
function hopAnomalies(entry: ChainEntry, n: number, now: number, out: string[]): void {
  const { hop } = entry;
  if (hop.time === null) out.push(`${label(n, hop)} has no readable date.`);
  if (entry.delaySeconds !== null && entry.delaySeconds < 0) {
    out.push(
      `${label(n, hop)} is dated ${formatDelay(-entry.delaySeconds)} before the hop that handed it the ` +
        'message; clocks may disagree or a Received header may be forged.',
    );
  }
  if (hop.time !== null && hop.time > now + FUTURE_TOLERANCE_MS) {
    out.push(`${label(n, hop)} is dated ${formatDelay((hop.time - now) / 1000)} in the future.`);
  }
  if (privateToPublic(hop)) {
    out.push(
      `${label(n, hop)}: private address ${hop.fromIp?.address} handed the message to a public relay.`,
    );
  }
  if (hop.fromIp && hop.heloIp && isPublicIp(hop.fromIp) && isPrivateSender(hop.heloIp)) {
    out.push(
      `${label(n, hop)}: the sender gave the private address ${hop.heloIp.address} as its name but ` +
        `connected from ${hop.fromIp.address}.`,
    );
  }
}

/** The chain's findings; unreadable hops are named one by one up to a cap, then counted. */
function chainAnomalies(chain: readonly ChainEntry[], now: number, out: string[]): void {
  const total = chain.length;
  let unreadable = 0;
  chain.forEach((entry, index) => {
    if (entry.hop.recognized) hopAnomalies(entry, index + 1, now, out);
    else if (++unreadable <= MAX_NAMED_UNREADABLE) {
      out.push(`Received header ${index + 1} of ${total} could not be parsed: "${quote(entry.raw)}".`);
    }
  });
  if (unreadable > MAX_NAMED_UNREADABLE) {
    out.push(`${unreadable - MAX_NAMED_UNREADABLE} more Received headers could not be parsed.`);
  }
  if (total > 20) {
    out.push(`The message has ${total} Received hops; only the 20 nearest the recipient were enriched.`);
  }
}

/** Short plain sentences, in a stable order: chain first, then message-level findings. */
export function findAnomalies(f: AnomalyFacts): string[] {
  const out: string[] = [];
  chainAnomalies(f.chain, f.now, out);
  if (!f.hasDate) out.push('The message has no Date header.');
  if (!f.hasMessageId) out.push('The message has no Message-ID header.');
  if (f.fromDomain !== null) {
    const from = f.fromDomain;
    if (f.dkimDomains.length > 0 && !f.dkimDomains.some((d) => aligned(d, from))) {
      out.push(`The From domain ${from} is not aligned with the DKIM signing domain ${f.dkimDomains[0]}.`);
    }
    if (f.returnPathDomain !== null && !aligned(f.returnPathDomain, from)) {
      out.push(`The From domain ${from} is not aligned with the Return-Path domain ${f.returnPathDomain}.`);
    }
  }
  return out;
}
