import type { CanonicalRow } from '../row.ts';
import { commentHeader, type EncoderFactory } from './encoder.ts';

/**
 * RPZ IP trigger owner name (draft-vixie-dnsop-dns-rpz §4.1.1): prefix length, then the address
 * reversed (IPv4 octets; IPv6 16-bit words with the compressed zero run written as `zz`), then `rpz-ip`.
 */
export function rpzIpName(c: Pick<CanonicalRow, 'family' | 'address' | 'prefixLength'>): string {
  const a = c.address;
  if (c.family === 4) {
    const i = a.indexOf('.');
    const j = a.indexOf('.', i + 1);
    const k = a.indexOf('.', j + 1);
    return `${c.prefixLength}.${a.slice(k + 1)}.${a.slice(j + 1, k)}.${a.slice(i + 1, j)}.${a.slice(0, i)}.rpz-ip`;
  }
  const [left = '', right] = a.split('::');
  const words =
    right === undefined
      ? left.split(':')
      : [...(left ? left.split(':') : []), 'zz', ...(right ? right.split(':') : [])];
  return `${c.prefixLength}.${words.reverse().join('.')}.rpz-ip`;
}

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
  row: (c) => `${rpzIpName(c)} CNAME .\n`,
  footer: () => '',
});
