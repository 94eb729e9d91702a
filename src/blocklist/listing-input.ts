/** The checks of what callers hand the blocklist: an address, a listing type, a return code, a reason. */
import { AppError } from '../core/errors.ts';
import { ipv4Slash24, parseIp } from '../core/ip.ts';
import {
  DEFAULT_RETURN_CODES,
  LISTING_TYPES,
  type ListInput,
  type ListingType,
  MAX_REASON_LENGTH,
} from './types.ts';

export function isListingType(value: unknown): value is ListingType {
  return typeof value === 'string' && (LISTING_TYPES as readonly string[]).includes(value);
}

/** Strict dotted quad in 127.0.0.0/8, not 127.0.0.1 (CONTRACT §4). */
export function isValidReturnCode(code: string): boolean {
  const parsed = parseIp(code);
  return (
    parsed !== null &&
    parsed.family === 4 &&
    parsed.address === code &&
    parsed.bytes[0] === 127 &&
    code !== '127.0.0.1'
  );
}

/** A reason is served in DNS TXT and JSON: printable, bounded, not blank. */
export function validReason(reason: unknown, field = 'reason'): string {
  if (typeof reason !== 'string' || reason.trim() === '')
    throw new AppError('INVALID_BODY', `${field} must be a non-empty string`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we reject
  if (/[\u0000-\u001f\u007f]/.test(reason))
    throw new AppError('INVALID_BODY', `${field} contains control characters`);
  if (reason.length > MAX_REASON_LENGTH)
    throw new AppError('INVALID_BODY', `${field} is longer than ${MAX_REASON_LENGTH} characters`);
  return reason.trim();
}

export function requireIp(ip: unknown): { address: string; family: 4 | 6; subnet24: string | null } {
  const parsed = parseIp(ip);
  if (!parsed) throw new AppError('INVALID_IP', `invalid IP address: ${String(ip).slice(0, 64)}`);
  return {
    address: parsed.address,
    family: parsed.family,
    subnet24: parsed.family === 4 ? ipv4Slash24(parsed) : null,
  };
}

/** The address, reason and return code of a listing (the type's default code unless given). */
export function validListInput(input: ListInput): {
  ip: ReturnType<typeof requireIp>;
  reason: string;
  returnCode: string;
} {
  const ip = requireIp(input.ip);
  if (!isListingType(input.type))
    throw new AppError('INVALID_BODY', 'type must be spam, malware or phishing');
  const reason = validReason(input.reason);
  const returnCode = input.returnCode ?? DEFAULT_RETURN_CODES[input.type];
  if (typeof returnCode !== 'string' || !isValidReturnCode(returnCode))
    throw new AppError(
      'INVALID_BODY',
      `return_code must be an address in 127.0.0.0/8 other than 127.0.0.1: ${String(returnCode).slice(0, 20)}`,
    );
  return { ip, reason, returnCode };
}
