import { AppError } from '../core/errors.ts';

/** Spec §8: the `headers` value is limited to 48 KiB. */
export const MAX_HEADERS_BYTES = 49_152;
/** Spec §8 and rule 5: IP enrichment for at most this many Received hops. */
export const MAX_ENRICHED_HOPS = 20;

/**
 * Validates the caller's `headers` value for both header-analyzer routes.
 * Missing, not a string, or blank → MISSING_HEADERS; over 49152 UTF-8 bytes → HEADERS_TOO_LARGE.
 */
export function checkHeadersInput(value: unknown): string {
  if (typeof value !== 'string' || value.trim().length === 0) throw new AppError('MISSING_HEADERS');
  // Cheap bound first: every UTF-16 unit is at least one UTF-8 byte.
  if (value.length > MAX_HEADERS_BYTES || Buffer.byteLength(value, 'utf8') > MAX_HEADERS_BYTES) {
    throw new AppError('HEADERS_TOO_LARGE');
  }
  return value;
}
