import type { CanonicalRow } from '../row.ts';
import { ByteSink } from './byte-sink.ts';
import { commentHeader, type EncoderFactory } from './encoder.ts';

/** The IPv6 words of an RPZ trigger, last first: the compressed zero run (empty words) as one `zz`. */
function writeV6Words(a: string, out: ByteSink): void {
  let end = a.length;
  let zz = false;
  for (let i = a.length - 1; i >= -1; i--) {
    if (i !== -1 && a.charCodeAt(i) !== 58) continue;
    if (i + 1 < end) {
      out.byte(46);
      out.asciiRange(a, i + 1, end);
    } else if (!zz) {
      zz = true;
      out.ascii('.zz');
    }
    end = i;
  }
}

/** rpzIpName written to a sink, without the name's string. */
function writeRpzIpName(c: Pick<CanonicalRow, 'family' | 'address' | 'prefixLength'>, out: ByteSink): void {
  const a = c.address;
  out.int(c.prefixLength);
  if (c.family === 4) {
    const i = a.indexOf('.');
    const j = a.indexOf('.', i + 1);
    const k = a.indexOf('.', j + 1);
    out.byte(46);
    out.asciiRange(a, k + 1, a.length);
    out.byte(46);
    out.asciiRange(a, j + 1, k);
    out.byte(46);
    out.asciiRange(a, i + 1, j);
    out.byte(46);
    out.asciiRange(a, 0, i);
  } else writeV6Words(a, out);
  out.ascii('.rpz-ip');
}

/**
 * RPZ IP trigger owner name (draft-vixie-dnsop-dns-rpz §4.1.1): prefix length, then the address
 * reversed (IPv4 octets; IPv6 16-bit words with the compressed zero run written as `zz`), then `rpz-ip`.
 */
export function rpzIpName(c: Pick<CanonicalRow, 'family' | 'address' | 'prefixLength'>): string {
  const out = new ByteSink(128);
  writeRpzIpName(c, out);
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
  row: (c, out) => {
    writeRpzIpName(c, out);
    out.bytes(CNAME);
  },
  footer: () => '',
});
