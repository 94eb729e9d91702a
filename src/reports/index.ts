/**
 * Mail operators' reports (issue #38): DMARC aggregate, failure and SMTP TLS reports uploaded per
 * owner, stored once, refused uploads kept with their reason. The only file other folders import.
 */
import type { Clock } from '../core/clock.ts';
import { AppError } from '../core/errors.ts';
import type { Store } from '../store/index.ts';
import type { ReportAlerts } from './alerts.ts';
import { readReport } from './read.ts';
import { answerOf, recordRows, rejectedOf, reportRow, summaryOf } from './rows.ts';
import { createReportStore } from './store.ts';
import type { RejectedReport, ReportAnswer, ReportSummary } from './types.ts';

export { alertPassRate, createReportAlerts, type ReportAlerts } from './alerts.ts';
export { ACCEPTED_TYPES } from './read.ts';
export * from './types.ts';
export { MAX_PERIOD_DAYS, viewDomain } from './view-params.ts';
export * from './view-types.ts';
export { createReportViews, type ReportViews, type SourceIntel } from './views.ts';
export { sourcesCsv } from './views-csv.ts';

/** The first bytes of a refused upload kept for inspection. */
export const KEPT_REJECTED_BYTES = 256 * 1024;

export interface Reports {
  /**
   * Reads and stores the one report of an upload. A refusal (INVALID_REPORT, PAYLOAD_TOO_LARGE) is
   * kept with its reason and thrown with `meta.rejected_id`.
   */
  ingest(
    ownerId: number,
    bytes: Uint8Array,
    contentType: string | null,
  ): Promise<ReportSummary & { duplicate: boolean }>;
  list(ownerId: number, limit: number, offset: number): Promise<{ items: ReportSummary[]; total: number }>;
  get(ownerId: number, id: number): Promise<ReportAnswer | null>;
  rejections(
    ownerId: number,
    limit: number,
    offset: number,
  ): Promise<{ items: RejectedReport[]; total: number }>;
}

export function createReports(deps: {
  store: Store;
  clock: Clock;
  /** NETREP_REPORTS_MAX_DECODED_BYTES: the cap on any inflated or decoded content. */
  maxDecodedBytes: number;
  /** Webhook alerts worked out after a new aggregate report is stored (alerts.ts). */
  alerts?: ReportAlerts;
}): Reports {
  const store = createReportStore(deps.store);
  return {
    async ingest(ownerId, bytes, contentType) {
      const now = deps.clock();
      let read: Awaited<ReturnType<typeof readReport>>;
      try {
        read = await readReport(bytes, deps.maxDecodedBytes);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        const id = await store.reject({
          owner_id: ownerId,
          reason: err.message,
          content_type: contentType?.slice(0, 200) ?? null,
          size: bytes.length,
          raw: Buffer.from(bytes.subarray(0, KEPT_REJECTED_BYTES)).toString('base64'),
          raw_truncated: bytes.length > KEPT_REJECTED_BYTES ? 1 : 0,
          received_at: now,
        });
        throw new AppError(err.code, err.message, { meta: { rejected_id: id } });
      }
      const row = reportRow(ownerId, read.report, read.format, now);
      const { id, duplicate } = await store.put(row, recordRows(read.report));
      const first = duplicate ? await store.report(ownerId, id) : null;
      // After the report's transaction; check() never throws, so the stored report always answers.
      if (!duplicate && row.kind === 'aggregate' && row.domain) await deps.alerts?.check(ownerId, row.domain);
      return { ...summaryOf(first ?? { ...row, id }), duplicate };
    },
    async list(ownerId, limit, offset) {
      const page = await store.list(ownerId, limit, offset);
      return { items: page.items.map(summaryOf), total: page.total };
    },
    async get(ownerId, id) {
      const found = await store.get(ownerId, id);
      return found ? answerOf(found.report, found.records) : null;
    },
    async rejections(ownerId, limit, offset) {
      const page = await store.rejections(ownerId, limit, offset);
      return { items: page.items.map(rejectedOf), total: page.total };
    },
  };
}
