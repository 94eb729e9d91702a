import type { FeedRow } from '../types.ts';
import type { EncoderFactory } from './encoder.ts';

/** RFC 4180: a field with a comma, quote, CR or LF is quoted, and quotes inside are doubled. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function csvColumns(hasBrand: boolean): (keyof FeedRow)[] {
  return hasBrand
    ? ['network', 'kind', 'source', 'first_seen', 'last_seen', 'brand', 'asn']
    : ['network', 'kind', 'source', 'first_seen', 'last_seen', 'asn'];
}

/** Header line, then one line per row; brand only on feeds that carry it, asn empty when unknown. */
export const createCsvEncoder: EncoderFactory = (ctx) => {
  const columns = csvColumns(ctx.feed.has_brand);
  return {
    header: () => `${columns.join(',')}\n`,
    row: ({ row }) => {
      let line = '';
      for (let i = 0; i < columns.length; i++) {
        const v = row[columns[i] as keyof FeedRow];
        if (i > 0) line += ',';
        if (v !== undefined) line += typeof v === 'number' ? String(v) : csvField(v);
      }
      return `${line}\n`;
    },
    footer: () => '',
  };
};
