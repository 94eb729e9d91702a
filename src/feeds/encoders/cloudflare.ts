import type { EncoderFactory } from './encoder.ts';

/** Cloudflare rejects rule expressions of 4096 characters or more; every line stays below. */
export const CLOUDFLARE_MAX_EXPRESSION = 4095;

const OPEN = '(ip.src in {';
const CLOSE = '})';

/**
 * One firewall-rule expression per line, `(ip.src in {a b/24 ...})`, split so that each expression
 * stays within CLOUDFLARE_MAX_EXPRESSION characters. Expressions have no comment syntax, so the file
 * holds expressions only; an empty feed is an empty file.
 */
export const createCloudflareEncoder: EncoderFactory = () => {
  let length = 0;
  return {
    header: () => '',
    row: ({ row }) => {
      const token = row.network;
      if (length === 0) {
        length = OPEN.length + token.length;
        return OPEN + token;
      }
      if (length + 1 + token.length + CLOSE.length > CLOUDFLARE_MAX_EXPRESSION) {
        length = OPEN.length + token.length;
        return `${CLOSE}\n${OPEN}${token}`;
      }
      length += 1 + token.length;
      return ` ${token}`;
    },
    footer: () => (length === 0 ? '' : `${CLOSE}\n`),
  };
};
