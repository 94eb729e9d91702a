import type { FeedFormat } from '../types.ts';
import { createBindEncoder } from './bind.ts';
import { createCaddyEncoder } from './caddy.ts';
import { createCloudflareEncoder } from './cloudflare.ts';
import { createCsvEncoder } from './csv.ts';
import type { EncoderFactory } from './encoder.ts';
import { createIptablesEncoder } from './iptables.ts';
import { createJsonEncoder } from './json.ts';
import { createNginxEncoder } from './nginx.ts';
import { createPlainEncoder } from './plain.ts';

export const ENCODERS: Readonly<Record<FeedFormat, EncoderFactory>> = {
  csv: createCsvEncoder,
  json: createJsonEncoder,
  plain: createPlainEncoder,
  bind: createBindEncoder,
  nginx: createNginxEncoder,
  caddy: createCaddyEncoder,
  iptables: createIptablesEncoder,
  cloudflare: createCloudflareEncoder,
};
