/** The back-off schedule and the signature a receiver checks. */
import { describe, expect, it } from 'vitest';
import { nextAttemptAt } from './retry.ts';
import { signatureOf, verifySignature } from './signature.ts';

describe('nextAttemptAt', () => {
  const policy = { baseMs: 60_000, maxAttempts: 7 };

  it('doubles the wait with ±20 % jitter: 7 attempts over about an hour, then dead', () => {
    const mid = (n: number) => (nextAttemptAt(policy, n, 0, () => 0.5) as number) / 60_000;
    expect([1, 2, 3, 4, 5, 6].map(mid)).toEqual([1, 2, 4, 8, 16, 32]);
    expect(nextAttemptAt(policy, 7, 0, () => 0.5)).toBeNull();
    expect(nextAttemptAt(policy, 1, 0, () => 0)).toBe(48_000);
    expect(nextAttemptAt(policy, 1, 0, () => 0.999_999)).toBeCloseTo(72_000, -1);
    const total = [1, 2, 3, 4, 5, 6].reduce((s, n) => s + mid(n), 0);
    expect(total).toBeGreaterThan(55);
    expect(total).toBeLessThan(70);
  });
});

describe('signature', () => {
  it('is t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")> and verifies only the same body and secret', () => {
    const body = '{"id":"e1"}';
    const header = signatureOf('s3cret-s3cret-s3cret', 1_781_000_000, body);
    // Computed independently: printf '1781000000.{"id":"e1"}' | openssl dgst -sha256 -hmac s3cret-s3cret-s3cret
    expect(header).toBe('t=1781000000,v1=73b7a809047637ee087623804631b4b8b8e7b04b3ba4823facf9bafb78119f63');
    expect(verifySignature('s3cret-s3cret-s3cret', header, body)).toBe(true);
    expect(verifySignature('s3cret-s3cret-s3cret', header, `${body} `)).toBe(false);
    expect(verifySignature('other-secret-000000', header, body)).toBe(false);
    expect(verifySignature('s3cret-s3cret-s3cret', 'garbage', body)).toBe(false);
    expect(
      verifySignature('s3cret-s3cret-s3cret', header.replace('t=1781000000', 't=1781000001'), body),
    ).toBe(false);
  });
});
