/**
 * Key and password material. Keys: `nrp_` + 40 base62 characters (CONTRACT §3), stored as a
 * SHA-256 hash plus the first 8 characters. Passwords: scrypt with a random salt.
 */
import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
) => Promise<Buffer>;

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const KEY_PREFIX = 'nrp_';
export const KEY_PATTERN = /^nrp_[A-Za-z0-9]{40}$/;

/** Uniform base62 by rejection sampling (248 = 4 × 62 keeps the modulo unbiased). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of crypto.randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function generateApiKey(): string {
  return KEY_PREFIX + randomBase62(40);
}

export function hashApiKey(key: string): string {
  // One-shot hash (no Hash object): this runs on every keyed request.
  return crypto.hash('sha256', key, 'hex');
}

export function displayPrefix(key: string): string {
  return key.slice(0, 8);
}

/** Constant-time comparison of two hex digests of equal length. */
export function sameDigest(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ba.length === bb.length && crypto.timingSafeEqual(ba, bb);
}

const SCRYPT_KEYLEN = 32;

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const derived = await scrypt(password, salt, SCRYPT_KEYLEN);
  return `scrypt$${salt.toString('base64')}$${derived.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, saltB64, hashB64] = stored.split('$');
  if (scheme !== 'scrypt' || !saltB64 || !hashB64) return false;
  const expected = Buffer.from(hashB64, 'base64');
  const derived = await scrypt(password, Buffer.from(saltB64, 'base64'), expected.length);
  return derived.length === expected.length && crypto.timingSafeEqual(derived, expected);
}

export function randomPassword(): string {
  return randomBase62(20);
}
