import type { IpFamily } from '../../core/ip.ts';
import type { CanonicalRow } from '../row.ts';
import { ByteSink } from './byte-sink.ts';
import { commentHeader, type EncoderFactory } from './encoder.ts';

const ZZ = Buffer.from('.zz');
const RPZ_IP = Buffer.from('.rpz-ip');

/** The IPv6 words of an RPZ trigger in a[start, end), last first: the compressed zero run (empty words) as one `zz`. */
function writeV6Words(a: Uint8Array, start: number, end: number, out: ByteSink): void {
  let wordEnd = end;
  let zz = false;
  for (let i = end - 1; i >= start - 1; i--) {
    if (i !== start - 1 && a[i] !== 58) continue;
    if (i + 1 < wordEnd) {
      out.byte(46);
      out.range(a, i + 1, wordEnd);
    } else if (!zz) {
      zz = true;
      out.bytes(ZZ);
    }
    wordEnd = i;
  }
}

/** The owner name of rpzIpName for the address a[start, end), written to a sink without the name's string. */
function writeRpzIpName(
  family: IpFamily,
  a: Uint8Array,
  start: number,
  end: number,
  prefixLength: number,
  out: ByteSink,
): void {
  out.int(prefixLength);
  if (family === 4) {
    let i = start;
    while (a[i] !== 46) i++;
    let j = i + 1;
    while (a[j] !== 46) j++;
    let k = j + 1;
    while (a[k] !== 46) k++;
    out.byte(46);
    out.range(a, k + 1, end);
    out.byte(46);
    out.range(a, j + 1, k);
    out.byte(46);
    out.range(a, i + 1, j);
    out.byte(46);
    out.range(a, start, i);
  } else writeV6Words(a, start, end, out);
  out.bytes(RPZ_IP);
}

/**
 * RPZ IP trigger owner name (draft-vixie-dnsop-dns-rpz §4.1.1): prefix length, then the address
 * reversed (IPv4 octets; IPv6 16-bit words with the compressed zero run written as `zz`), then `rpz-ip`.
 */
export function rpzIpName(c: Pick<CanonicalRow, 'family' | 'address' | 'prefixLength'>): string {
  const out = new ByteSink(128);
  const address = Buffer.from(c.address, 'latin1');
  writeRpzIpName(c.family, address, 0, address.length, c.prefixLength, out);
  return out.takeText();
}

const CNAME = Buffer.from(' CNAME .\n');

/**
 * A complete RPZ zone file with relative names (the zone name is the operator's choice):
 * SOA (serial from the snapshot day), NS, then `<trigger> CNAME .` (NXDOMAIN policy) per network.
 */
export const createBindEncoder: EncoderFactory = (ctx) => ({
  header: () => {
    const serial = `${ctx.date.replace(/-/g, '')}00`;
    return (
      commentHeader(ctx, ';', [
        'Response Policy Zone: load as a zone of type primary and name it in response-policy { zone "..."; };',
        'Every listed network triggers the NXDOMAIN policy (CNAME .) on answers that contain its addresses.',
      ]) +
      '$TTL 3600\n' +
      `@ IN SOA localhost. hostmaster.localhost. ${serial} 3600 600 604800 300\n` +
      '@ IN NS localhost.\n'
    );
  },
  row: (r, out) => {
    writeRpzIpName(r.family, r.buf, r.netStart, r.addressEnd, r.prefixLength, out);
    out.bytes(CNAME);
  },
  footer: () => '',
});
