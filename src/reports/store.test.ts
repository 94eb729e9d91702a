/** The report store on both dialects: one copy per report, rows with their report or not at all. */
import { afterEach, describe, expect, it } from 'vitest';
import { createTestStore, STORE_KINDS, skipStore, type TestStoreHandle } from '../../test/helpers/stores.ts';
import { createReportStore, type RecordRow, type ReportRow } from './store.ts';

const report = (reportId: string): Omit<ReportRow, 'id'> => ({
  owner_id: 1,
  kind: 'aggregate',
  org_name: 'r.example',
  report_id: reportId,
  domain: 'example.com',
  contact: null,
  begin_at: 1_700_000_000_000,
  end_at: 1_700_086_399_000,
  policy: null,
  record_count: 2,
  message_count: 3,
  source_format: 'xml',
  received_at: 1_750_000_000_000,
});

const row = (ordinal: number, count: number): RecordRow => ({
  ordinal,
  source_ip: '192.0.2.1',
  count,
  disposition: 'none',
  dkim: 'pass',
  spf: 'fail',
  header_from: 'example.com',
  detail: '{}',
});

describe.each(STORE_KINDS)('report store (%s)', (kind) => {
  const skip = skipStore(kind);
  let handle: TestStoreHandle | undefined;
  afterEach(async () => {
    await handle?.cleanup();
    handle = undefined;
  });

  it.skipIf(skip)('stores a report once, even when two uploads race', async () => {
    handle = await createTestStore(kind);
    const store = createReportStore(handle.store);
    const [a, b] = await Promise.all([
      store.put(report('x'), [row(0, 1), row(1, 2)]),
      store.put(report('x'), [row(0, 1), row(1, 2)]),
    ]);
    expect([a.duplicate, b.duplicate].sort()).toEqual([false, true]);
    expect(a.id).toBe(b.id);
    expect((await store.list(1, 10, 0)).total).toBe(1);
    expect((await store.get(1, a.id))?.records.map((r) => r.count)).toEqual([1, 2]);
    expect(await store.get(2, a.id)).toBeNull();
  });

  it.skipIf(skip)('writes no report when one of its rows cannot be written', async () => {
    handle = await createTestStore(kind);
    const store = createReportStore(handle.store);
    // Two rows with one ordinal break the (report, ordinal) constraint after the report row is in.
    await expect(store.put(report('y'), [row(0, 1), row(0, 2)])).rejects.toThrow();
    expect((await store.list(1, 10, 0)).total).toBe(0);
    const again = await store.put(report('y'), [row(0, 1)]);
    expect(again.duplicate).toBe(false);
    expect((await store.get(1, again.id))?.records).toHaveLength(1);
  });

  it.skipIf(skip)('writes a report of many rows in chunks', async () => {
    handle = await createTestStore(kind);
    const store = createReportStore(handle.store);
    const rows = Array.from({ length: 1234 }, (_, i) => row(i, i));
    const { id } = await store.put(report('big'), rows);
    const got = await store.get(1, id);
    expect(got?.records).toHaveLength(1234);
    expect(got?.records.at(-1)?.count).toBe(1233);
  });
});
