import type { FeedRow } from '../types.ts';
import type { EncoderFactory } from './encoder.ts';

/** A JSON array of row objects, one per line, keys in a fixed order. */
export const createJsonEncoder: EncoderFactory = (ctx) => {
  let first = true;
  return {
    header: () => '[',
    row: ({ row }) => {
      const out: FeedRow = {
        network: row.network,
        kind: row.kind,
        source: row.source,
        first_seen: row.first_seen,
        last_seen: row.last_seen,
      };
      if (ctx.feed.has_brand && row.brand !== undefined) out.brand = row.brand;
      if (row.asn !== undefined) out.asn = row.asn;
      const text = `${first ? '\n' : ',\n'}${JSON.stringify(out)}`;
      first = false;
      return text;
    },
    footer: () => (first ? ']\n' : '\n]\n'),
  };
};
