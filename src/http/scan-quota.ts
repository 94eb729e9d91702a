/**
 * Whether an anonymous lookup may queue a service scan (issue #34 item 2): one more point of the
 * same client's public per-minute bucket, so a client's queued scans count against its quota and
 * a client past it queues none. Shared by GET /v1/public/ip/{ip} and the IP tool page.
 */
import { AppError } from '../core/errors.ts';
import { parseIp, rateLimitSubject } from '../core/ip.ts';
import type { HttpServices } from './context.ts';

const counted = () => true;
const refusedByQuota = (err: unknown): boolean => {
  if (err instanceof AppError && err.code === 'RATE_LIMIT_EXCEEDED') return false;
  throw err;
};

export function scanQuota(limits: HttpServices['limits'], clientIp: string): () => Promise<boolean> {
  // Asked only when a lookup would queue a scan; no async frame of its own (the first lookup's path).
  return () => {
    const client = parseIp(clientIp);
    return limits
      .consumeMinute('public', client ? rateLimitSubject(client) : clientIp)
      .then(counted, refusedByQuota);
  };
}
