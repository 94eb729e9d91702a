import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStore, type TestStoreHandle } from '../../test/helpers/stores.ts';
import { createLimits, type Limits } from './index.ts';

describe('consumeMinuteNow (a bucket in this instance memory)', () => {
  let handle: TestStoreHandle;
  let limits: Limits;
  beforeAll(async () => {
    handle = await createTestStore('sqlite');
    limits = createLimits({
      store: handle.store,
      redis: null,
      clock: Date.now,
      buckets: { public: { points: 3 } },
    });
  });
  afterAll(() => handle.cleanup());

  it('counts the point at once, in the same count consumeMinute keeps, and says when it did not fit', async () => {
    expect(limits.consumeMinuteNow('public', '198.51.100.1')).toBe(true);
    expect((await limits.consumeMinute('public', '198.51.100.1')).remaining).toBe(1);
    expect(limits.consumeMinuteNow('public', '198.51.100.1')).toBe(true);
    // The fourth point of three: not fitted, and consumeMinute agrees.
    expect(limits.consumeMinuteNow('public', '198.51.100.1')).toBe(false);
    await expect(limits.consumeMinute('public', '198.51.100.1')).rejects.toMatchObject({
      code: 'RATE_LIMIT_EXCEEDED',
    });
    // Another subject has its own count.
    expect(limits.consumeMinuteNow('public', '198.51.100.2')).toBe(true);
  });
});
