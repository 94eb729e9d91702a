/**
 * The delivery signature (CONTRACT §11): `t=<unix seconds>,v1=<hex HMAC-SHA256(secret,
 * "<t>.<body>")>`. Receivers recompute it over the raw body and compare in constant time.
 */
import crypto from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Netrep-Signature';
export const EVENT_ID_HEADER = 'X-Netrep-Event-Id';

export function signatureOf(secret: string, unixSeconds: number, body: string): string {
  const mac = crypto.createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/** Checks a header against the body: what a receiver does (tests use it too). */
export function verifySignature(secret: string, header: string, body: string): boolean {
  const parts = new Map(
    header.split(',').map((p) => {
      const eq = p.indexOf('=');
      return [p.slice(0, eq).trim(), p.slice(eq + 1).trim()] as const;
    }),
  );
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1') ?? '';
  if (!Number.isSafeInteger(t) || !/^[0-9a-f]{64}$/.test(v1)) return false;
  const expected = signatureOf(secret, t, body).split('v1=')[1] ?? '';
  return crypto.timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(v1, 'hex'));
}
