/**
 * Header analysis throughput for a typical 8-hop Gmail-delivered header block, built from two
 * real samples: rspamd arcallow.eml (Outlook → Gmail, 5 hops) with the Gmail forwarding hops and
 * ARC/A-R headers of mailauth arc-pass.eml on top (3 more hops). References measured in the same
 * run: splitting the block into lines, and libmime's header parser alone.
 * Run: node --import tsx bench/headers.ts   (one line per measurement)
 */
import { readFileSync } from 'node:fs';
import libmime from 'libmime';
import { analyzeHeaders } from '../src/headers/index.ts';
import { sharedDataPath } from '../test/helpers/shared-data.ts';

function headerSection(rel: string): string {
  const text = readFileSync(sharedDataPath('email', rel), 'latin1');
  return (text.split(/\r?\n\r?\n/)[0] as string).replace(/\r?\n/g, '\r\n');
}

/** The top block of arc-pass down to (not including) its third Received header. */
function topOfArcPass(): string {
  const lines = headerSection('messages/mailauth-arc-pass.eml').split('\r\n');
  const out: string[] = [];
  let received = 0;
  for (const line of lines) {
    if (/^Received:/i.test(line) && ++received === 4) break;
    out.push(line);
  }
  return out.join('\r\n');
}

const block = `${topOfArcPass()}\r\n${headerSection('messages/rspamd-arcallow.eml')}\r\n\r\n`;
const enrich = (ip: string) => ({
  asn: ip.length,
  asn_name: 'BENCH',
  country: 'US',
  cloud_provider: null,
  connection_type: 'datacenter',
  threat_score: 0,
});
const clock = () => Date.UTC(2026, 0, 1);

async function measure(fn: () => unknown, ms = 1500): Promise<number> {
  for (let i = 0; i < 200; i++) await fn(); // warm-up
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < ms) {
    for (let i = 0; i < 50; i++) await fn();
    n += 50;
  }
  return (n * 1000) / (performance.now() - start);
}

const check = await analyzeHeaders(block, { clock, enrich });
if (check.received_chain.length !== 8) throw new Error(`expected 8 hops, got ${check.received_chain.length}`);

const analyze = await measure(() => analyzeHeaders(block, { clock, enrich }));
const split = await measure(() => block.split(/\r?\n/));
const mime = await measure(() => libmime.decodeHeaders(block));
const bytes = Buffer.byteLength(block);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
console.log(`headers analyzeHeaders 8-hop Gmail (${bytes} bytes): ${fmt(analyze)} analyses/s`);
console.log(
  `headers reference split-into-lines: ${fmt(split)} ops/s; analyze/split ratio ${(analyze / split).toFixed(4)}`,
);
console.log(
  `headers reference libmime.decodeHeaders: ${fmt(mime)} ops/s; analyze/libmime ratio ${(analyze / mime).toFixed(3)}`,
);
