import { csvField } from '../../core/csv.ts';
import { sharedFieldsMemo } from '../row.ts';
import { utf8Memo } from './byte-sink.ts';
import type { EncoderFactory } from './encoder.ts';

/**
 * Header line, then one line per row: network, kind, source, first_seen, last_seen, then brand
 * on feeds that carry it, then asn (empty when unknown). Networks are normalized, never quoted.
 */
export const createCsvEncoder: EncoderFactory = (ctx) => {
  const hasBrand = ctx.feed.has_brand;
  const shared = sharedFieldsMemo(
    (r) => `,${csvField(r.kind)},${csvField(r.source)},${csvField(r.first_seen)},${csvField(r.last_seen)},`,
  );
  const sharedBytes = utf8Memo();
  const brandBytes = utf8Memo((b) => `${csvField(b)},`);
  return {
    header: () =>
      hasBrand
        ? 'network,kind,source,first_seen,last_seen,brand,asn\n'
        : 'network,kind,source,first_seen,last_seen,asn\n',
    row: (r, out) => {
      out.range(r.buf, r.netStart, r.netEnd);
      out.bytes(sharedBytes(shared(r.shared)));
      if (hasBrand) {
        if (r.brand === undefined) out.byte(44);
        else out.bytes(brandBytes(r.brand));
      }
      if (r.asn !== undefined) out.int(r.asn);
      out.byte(10);
    },
    footer: () => '',
  };
};
