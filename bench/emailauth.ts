/**
 * Email authentication throughput against a real DNS server on 127.0.0.1 (the test zone server):
 * a full domain check (MX, SPF with an include, the default DKIM selectors, DMARC), SPF
 * check_host(), a cached domain check (HIT), and the raw fallback resolver. Reference measured in
 * the same run: one TXT lookup through the same c-ares client, so the check's cost reads as
 * "worth N lookups" on any machine.
 * Run: node --import tsx bench/emailauth.ts   (one line per measurement)
 */
import { generateKeyPairSync } from 'node:crypto';
import { createDnsClient } from '../src/core/dns/index.ts';
import { rawQuery } from '../src/core/dns/raw-query.ts';
import { checkDomain, checkHost, createDomainCheckCache } from '../src/emailauth/index.ts';
import { startZoneServer } from '../test/helpers/dns-zone-server.ts';

const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const key = publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
const server = await startZoneServer({
  'bench.com': [
    { type: 'MX', data: { preference: 10, exchange: 'mx1.bench.com' } },
    { type: 'MX', data: { preference: 20, exchange: 'mx2.bench.com' } },
    { type: 'TXT', data: 'v=spf1 ip4:192.0.2.0/24 include:_spf.bench.com -all' },
  ],
  'mx1.bench.com': [{ type: 'A', data: '192.0.2.1' }],
  'mx2.bench.com': [{ type: 'A', data: '192.0.2.2' }],
  '_spf.bench.com': [{ type: 'TXT', data: 'v=spf1 ip4:198.51.100.0/24 a:out.bench.com -all' }],
  'out.bench.com': [{ type: 'A', data: '203.0.113.5' }],
  'google._domainkey.bench.com': [{ type: 'TXT', data: ['v=DKIM1; k=rsa; p=', key] }],
  '_dmarc.bench.com': [{ type: 'TXT', data: 'v=DMARC1; p=reject; rua=mailto:d@bench.com' }],
  'odd:name.bench.com': [{ type: 'TXT', data: 'x' }],
});
const dns = createDnsClient({ servers: server.servers, timeoutMs: 1000, tries: 1 });
const clock = () => Date.now();

async function measure(fn: () => Promise<unknown>, ms = 1500): Promise<number> {
  for (let i = 0; i < 20; i++) await fn(); // warm-up
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < ms) {
    await Promise.all(Array.from({ length: 4 }, fn));
    n += 4;
  }
  return (n * 1000) / (performance.now() - start);
}

const sample = await checkDomain('bench.com', { dns, clock });
if (sample.grade !== 'A') throw new Error(`expected grade A, got ${sample.grade}`);
const lookupsPerCheck = sample.dns.lookups;
const host = await checkHost('203.0.113.5', 'bench.com', 'a@bench.com', { dns, clock });
if (host.result !== 'pass') throw new Error(`expected pass, got ${host.result}`);
const cache = createDomainCheckCache({ dns, clock });
await cache.check('bench.com');

const lookup = await measure(() => dns.txt('bench.com'));
const check = await measure(() => checkDomain('bench.com', { dns, clock }));
const spf = await measure(() => checkHost('203.0.113.5', 'bench.com', 'a@bench.com', { dns, clock }));
const hit = await measure(() => cache.check('bench.com'));
const raw = await measure(() =>
  rawQuery('odd:name.bench.com', 'TXT', { servers: server.servers, timeoutMs: 1000, tries: 1 }),
);
await server.close();

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const ratio = (a: number, b: number) => (a / b).toFixed(2);
console.log(`emailauth reference: c-ares TXT lookup on 127.0.0.1: ${fmt(lookup)} lookups/s`);
console.log(
  `emailauth checkDomain (${lookupsPerCheck} lookups): ${fmt(check)} checks/s = ${ratio(lookup, check)} lookups' time each`,
);
console.log(
  `emailauth checkHost include+a pass: ${fmt(spf)} checks/s = ${ratio(lookup, spf)} lookups' time each`,
);
console.log(
  `emailauth cached domain check (HIT): ${fmt(hit)} answers/s = ${ratio(hit, check)}x a fresh check`,
);
console.log(`emailauth raw fallback TXT lookup: ${fmt(raw)} lookups/s = ${ratio(raw, lookup)}x c-ares`);
