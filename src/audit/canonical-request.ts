/**
 * The canonical audit request (SERVICE-SPEC §2.11, CONTRACT §10): `targets`, `ips`, `cidrs` and
 * `asns` folded into three normalized, deduplicated, sorted lists (an IP in `targets` counts as
 * one in `ips`, a full-length CIDR as an IP, `AS64500` as 64500), plus every field that changes
 * the result. `request_hash` is the SHA-256 of its JSON. `freshness_seconds` only sets the reuse
 * window of the job it creates, so it is kept beside the hash, not in it.
 */
import crypto from 'node:crypto';
import { AppError } from '../core/errors.ts';
import { parseCidr, parseIp } from '../core/ip.ts';
import type { AddressRange } from './population.ts';
import type { CreateAuditJobBody } from './types.ts';

export const MAX_ASN = 4294967295;
export const DEFAULT_MAX_SAMPLES = 256;
export const DEFAULT_MAX_POPULATION = 1_000_000;

export interface CanonicalRequest {
  ips: string[];
  cidrs: string[];
  asns: number[];
  dataset_version: number;
  seed: string;
  max_samples: number;
  max_population: number;
  acceptance: boolean;
}

const ASN_TEXT = /^(?:AS)?(\d{1,10})$/i;

function checkAsn(asn: number, where: string): number {
  if (!Number.isInteger(asn) || asn < 1 || asn > MAX_ASN) {
    throw new AppError('INVALID_ASN', `invalid ASN: ${where} must be an integer 1-${MAX_ASN}`);
  }
  return asn;
}

function ipOrCidr(
  text: string,
  where: string,
  into: { ips: Set<string>; cidrs: Set<string> },
  allow: 'ip' | 'cidr',
): void {
  if (allow === 'ip' || !text.includes('/')) {
    // parseIp refuses a text with a prefix length, so `ips` holds addresses only.
    const ip = parseIp(text);
    if (!ip) {
      throw new AppError(
        'INVALID_IP',
        `invalid IP address: ${where} is ${JSON.stringify(text.slice(0, 64))}`,
      );
    }
    into.ips.add(ip.address);
    return;
  }
  const c = parseCidr(text);
  if (!c) throw new AppError('INVALID_IP', `invalid CIDR: ${where} is ${JSON.stringify(text.slice(0, 64))}`);
  if (c.prefixLength === (c.family === 4 ? 32 : 128)) into.ips.add(c.network);
  else into.cidrs.add(c.cidr);
}

export function canonicalRequest(body: CreateAuditJobBody): CanonicalRequest {
  const into = { ips: new Set<string>(), cidrs: new Set<string>() };
  const asns = new Set<number>();
  (body.targets ?? []).forEach((t, i) => {
    const where = `targets[${i}]`;
    const m = ASN_TEXT.exec(t.trim());
    if (m) asns.add(checkAsn(Number(m[1]), where));
    else ipOrCidr(t, where, into, 'cidr');
  });
  (body.ips ?? []).forEach((t, i) => {
    ipOrCidr(t, `ips[${i}]`, into, 'ip');
  });
  (body.cidrs ?? []).forEach((t, i) => {
    ipOrCidr(t, `cidrs[${i}]`, into, 'cidr');
  });
  (body.asns ?? []).forEach((a, i) => {
    asns.add(checkAsn(a, `asns[${i}]`));
  });
  if (into.ips.size + into.cidrs.size + asns.size === 0) {
    throw new AppError('INVALID_BODY', 'at least one of targets, ips, cidrs or asns must name a target');
  }
  return {
    ips: [...into.ips].sort(),
    cidrs: [...into.cidrs].sort(),
    asns: [...asns].sort((a, b) => a - b),
    dataset_version: body.dataset_version,
    seed: body.seed,
    max_samples: body.max_samples ?? DEFAULT_MAX_SAMPLES,
    max_population: body.max_population ?? DEFAULT_MAX_POPULATION,
    acceptance: body.acceptance ?? false,
  };
}

/** SHA-256 (hex) of the canonical request's JSON, its keys in the fixed order above. */
export function requestHash(request: CanonicalRequest): string {
  const ordered: CanonicalRequest = {
    ips: request.ips,
    cidrs: request.cidrs,
    asns: request.asns,
    dataset_version: request.dataset_version,
    seed: request.seed,
    max_samples: request.max_samples,
    max_population: request.max_population,
    acceptance: request.acceptance,
  };
  return crypto.createHash('sha256').update(JSON.stringify(ordered)).digest('hex');
}

function toBig(bytes: readonly number[]): bigint {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  return n;
}

/** The address range of an IP or CIDR of the canonical request. */
export function rangeOf(text: string): AddressRange {
  const c = parseCidr(text);
  if (!c) throw new Error(`not a canonical address: ${text}`);
  const bits = c.family === 4 ? 32 : 128;
  const start = toBig(c.bytes);
  const end = start + (1n << BigInt(bits - c.prefixLength)) - 1n;
  return { family: c.family, start, end };
}
