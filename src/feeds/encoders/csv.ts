import { type EncoderFactory, lastValueMemo } from './encoder.ts';

/** RFC 4180: a field with a comma, quote, CR or LF is quoted, and quotes inside are doubled. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * Header line, then one line per row: network, kind, source, first_seen, last_seen, then brand
 * on feeds that carry it, then asn (empty when unknown). Networks are normalized, never quoted.
 */
export const createCsvEncoder: EncoderFactory = (ctx) => {
  const hasBrand = ctx.feed.has_brand;
  const kind = lastValueMemo(csvField);
  const source = lastValueMemo(csvField);
  const firstSeen = lastValueMemo(csvField);
  const lastSeen = lastValueMemo(csvField);
  const brand = lastValueMemo(csvField);
  return {
    header: () =>
      hasBrand
        ? 'network,kind,source,first_seen,last_seen,brand,asn\n'
        : 'network,kind,source,first_seen,last_seen,asn\n',
    row: ({ row }) => {
      const b = hasBrand ? `,${row.brand === undefined ? '' : brand(row.brand)}` : '';
      return `${row.network},${kind(row.kind)},${source(row.source)},${firstSeen(row.first_seen)},${lastSeen(row.last_seen)}${b},${row.asn ?? ''}\n`;
    },
    footer: () => '',
  };
};
