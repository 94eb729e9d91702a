import { describe, expect, it } from 'vitest';
import { AppError } from '../core/errors.ts';
import { checkHeadersInput, MAX_HEADERS_BYTES } from './limits.ts';

function codeOf(value: unknown): string | null {
  try {
    checkHeadersInput(value);
    return null;
  } catch (err) {
    return err instanceof AppError ? err.code : 'OTHER';
  }
}

describe('checkHeadersInput', () => {
  it('rejects missing, non-string and blank values with MISSING_HEADERS', () => {
    for (const v of [undefined, null, 42, {}, [], '', '   \r\n\t']) expect(codeOf(v)).toBe('MISSING_HEADERS');
  });

  it('counts UTF-8 bytes: 49152 is allowed, one more is HEADERS_TOO_LARGE', () => {
    expect(checkHeadersInput('a'.repeat(MAX_HEADERS_BYTES))).toHaveLength(MAX_HEADERS_BYTES);
    expect(codeOf('a'.repeat(MAX_HEADERS_BYTES + 1))).toBe('HEADERS_TOO_LARGE');
    // 16385 three-byte characters are 49155 bytes but only 16385 UTF-16 units.
    expect(codeOf('€'.repeat(16_385))).toBe('HEADERS_TOO_LARGE');
    expect(codeOf('€'.repeat(16_384))).toBeNull();
  });

  it('maps to status 400', () => {
    try {
      checkHeadersInput('');
    } catch (err) {
      expect((err as AppError).status).toBe(400);
    }
    expect.assertions(1);
  });
});
