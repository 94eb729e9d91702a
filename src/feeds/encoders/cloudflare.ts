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
    row: ({ row }, out) => {
      const token = row.network;
      if (length === 0) {
        length = OPEN.length + token.length;
        out.bytes(OPEN_BYTES);
      } else if (length + 1 + token.length + CLOSE.length > CLOUDFLARE_MAX_EXPRESSION) {
        length = OPEN.length + token.length;
        out.bytes(CLOSE_OPEN_BYTES);
      } else {
        length += 1 + token.length;
        out.byte(32);
      }
      out.ascii(token);
    },
    footer: () => (length === 0 ? '' : `${CLOSE}\n`),
  };
};
