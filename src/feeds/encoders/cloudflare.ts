import type { EncoderFactory } from './encoder.ts';

/** Cloudflare rejects rule expressions of 4096 characters or more; every line stays below. */
export const CLOUDFLARE_MAX_EXPRESSION = 4095;

const OPEN = '(ip.src in {';
const CLOSE = '})';
const OPEN_BYTES = Buffer.from(OPEN);
const CLOSE_OPEN_BYTES = Buffer.from(`${CLOSE}\n${OPEN}`);

/**
 * One firewall-rule expression per line, `(ip.src in {a b/24 ...})`, split so that each expression
 * stays within CLOUDFLARE_MAX_EXPRESSION characters. Expressions have no comment syntax, so the file
 * holds expressions only; an empty feed is an empty file.
 */
export const createCloudflareEncoder: EncoderFactory = () => {
  let length = 0;
  return {
    header: () => '',
    row: (r, out) => {
      const token = r.netEnd - r.netStart;
      if (length === 0) {
        length = OPEN.length + token;
        out.bytes(OPEN_BYTES);
      } else if (length + 1 + token + CLOSE.length > CLOUDFLARE_MAX_EXPRESSION) {
        length = OPEN.length + token;
        out.bytes(CLOSE_OPEN_BYTES);
      } else {
        length += 1 + token;
        out.byte(32);
      }
      out.range(r.buf, r.netStart, r.netEnd);
    },
    footer: () => (length === 0 ? '' : `${CLOSE}\n`),
  };
};
