/**
 * Query strings and path parameters are coerced by Ajv, which turns "Infinity", "1e309" or 400
 * nines into Infinity and then lets it through `type: integer` with its bounds. This wraps a
 * compiled validator so a parameter that comes out non-finite is refused like any other bad
 * value (400 INVALID_PARAMETER naming it) instead of reaching the handler.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';

function nonFinite(value: unknown): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  return Array.isArray(value) && value.some((v) => typeof v === 'number' && !Number.isFinite(v));
}

export function finiteParams(validate: ValidateFunction): ValidateFunction {
  const wrapped = ((data: unknown) => {
    if (!validate(data)) {
      wrapped.errors = validate.errors ?? null;
      return false;
    }
    if (data !== null && typeof data === 'object') {
      for (const [name, value] of Object.entries(data)) {
        if (!nonFinite(value)) continue;
        const error: ErrorObject = {
          instancePath: `/${name}`,
          schemaPath: '#/type',
          keyword: 'type',
          params: { type: 'number' },
          message: 'must be a finite number',
        };
        wrapped.errors = [error];
        return false;
      }
    }
    wrapped.errors = null;
    return true;
  }) as ValidateFunction;
  wrapped.schema = validate.schema;
  return wrapped;
}
