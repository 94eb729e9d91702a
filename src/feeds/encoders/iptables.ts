import type { IpFamily } from '../../core/ip.ts';
import type { CanonicalRow } from '../row.ts';
import { commentHeader, type EncoderFactory } from './encoder.ts';

/** Chain the feed's rules live in (iptables allows 28 characters). */
export function iptablesChain(feed: string): string {
  return `NETREP_${feed.toUpperCase()}`.slice(0, 28);
}

/** The head of an iptables-restore rule set: filter table, the feed chain declared (and, with --noflush, flushed). */
export function ruleSetHead(chain: string): string {
  return `*filter\n:${chain} - [0:0]\n`;
}

export function ruleLine(chain: string, c: Pick<CanonicalRow, 'address' | 'prefixLength'>): string {
  return `-A ${chain} -s ${c.address}/${c.prefixLength} -j DROP\n`;
}

export const RULE_SET_TAIL = 'COMMIT\n';

/**
 * The iptables-restore (family 4) or ip6tables-restore (family 6) rule set for rows in canonical
 * order; rows of the other family are skipped. The script format embeds exactly this text.
 */
export async function* iptablesRuleSet(
  feed: string,
  family: IpFamily,
  rows: Iterable<CanonicalRow> | AsyncIterable<CanonicalRow>,
): AsyncGenerator<string> {
  const chain = iptablesChain(feed);
  yield ruleSetHead(chain);
  for await (const c of rows) if (c.family === family) yield ruleLine(chain, c);
  yield RULE_SET_TAIL;
}

const DROP = Buffer.from(' -j DROP\n');
const END = { 4: 'NETREP_IPV4_RULES', 6: 'NETREP_IPV6_RULES' } as const;
const TOOL = { 4: 'iptables', 6: 'ip6tables' } as const;

function openSection(family: IpFamily, chain: string): string {
  return `${TOOL[family]}-restore --noflush <<'${END[family]}'\n${ruleSetHead(chain)}`;
}

function closeSection(family: IpFamily): string {
  const tool = TOOL[family];
  return (
    `${RULE_SET_TAIL}${END[family]}\n` +
    `${tool} -C INPUT -j "$CHAIN" 2>/dev/null || ${tool} -I INPUT -j "$CHAIN"\n`
  );
}

/**
 * A POSIX sh script: each family's rules are loaded in one atomic iptables-restore --noflush call
 * (declaring the chain replaces its previous content), then the chain is hooked into INPUT once.
 * Relies on canonical order: every IPv4 row comes before the first IPv6 row.
 */
export const createIptablesEncoder: EncoderFactory = (ctx) => {
  const chain = iptablesChain(ctx.feed.name);
  // ruleLine's text, in bytes: the part before the address and the part after the prefix length.
  const head = Buffer.from(`-A ${chain} -s `);
  let family: IpFamily = 4;
  const toV6 = () => {
    family = 6;
    return closeSection(4) + openSection(6, chain);
  };
  return {
    header: () =>
      '#!/bin/sh\n' +
      commentHeader(ctx, '#', [
        `Usage: run as root (sh ${ctx.feed.name}.iptables.sh); rerun to replace the previous snapshot.`,
        `Loads chain ${chain} for IPv4 and IPv6 and jumps to it from INPUT; rows are dropped.`,
      ]) +
      'set -eu\n' +
      `CHAIN=${chain}\n` +
      openSection(4, chain),
    row: (r, out) => {
      if (r.family === 6 && family === 4) out.text(toV6());
      else if (r.family !== family) throw new Error('iptables encoder: rows are not in canonical order');
      out.bytes(head);
      out.range(r.buf, r.netStart, r.addressEnd);
      out.byte(47);
      out.int(r.prefixLength);
      out.bytes(DROP);
    },
    footer: () => (family === 4 ? toV6() : '') + closeSection(6),
  };
};
