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

export function scanQuota(
  limits: HttpServices['limits'],
  clientIp: string,
): () => boolean | Promise<boolean> {
  // Asked only when a lookup would queue a scan. A bucket in this instance's memory answers at
  // once, so the first lookup's answer waits on no promise (issue #34: its latency unchanged).
  return () => {
    const client = parseIp(clientIp);
    const subject = client ? rateLimitSubject(client) : clientIp;
    return (
      limits.consumeMinuteNow('public', subject) ??
      limits.consumeMinute('public', subject).then(counted, refusedByQuota)
    );
  };
}
