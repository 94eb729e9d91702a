import type { EncoderFactory } from './encoder.ts';

/** One network per line and nothing else, so any line-oriented consumer can read it. */
export const createPlainEncoder: EncoderFactory = () => ({
  header: () => '',
  row: ({ row }, out) => {
    out.ascii(row.network);
    out.byte(10);
  },
  footer: () => '',
});
