import type { EncoderFactory } from './encoder.ts';

/** One network per line and nothing else, so any line-oriented consumer can read it. */
export const createPlainEncoder: EncoderFactory = () => ({
  header: () => '',
  row: (r, out) => {
    out.range(r.buf, r.netStart, r.netEnd);
    out.byte(10);
  },
  footer: () => '',
});
