import { describe, expect, it } from 'vitest';
import { usageError } from './summarize.ts';

describe('usageError', () => {
  it('asks for addresses first, then for a whole --top, and lets a good command line pass', () => {
    expect(usageError({ args: [] }, 'x')).toBe(
      'netrep: give addresses as arguments, or --file PATH (- for stdin)\n',
    );
    expect(usageError({ args: ['192.0.2.1'] }, '-1')).toBe('netrep: --top takes a whole number, not "-1"\n');
    expect(usageError({ args: [], file: '-' }, '2.5')).toBe(
      'netrep: --top takes a whole number, not "2.5"\n',
    );
    expect(usageError({ args: ['192.0.2.1'] }, '0')).toBeNull();
  });
});
