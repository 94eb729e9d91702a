/**
 * What a lookup says about the scan of its address, from the stored row alone (pure): a result
 * within its TTL answers (`done` with the fields, `failed` with why); a queued or running scan is
 * `pending`; a missing or expired result asks for a scan. While a rescan waits, the previous
 * result's fields and time are still shown.
 */
import type { ScanRow } from './store.ts';
import type { ScanAnswer, ScanReport, ScanStatus } from './types.ts';

export type RowVerdict = { answer: ScanAnswer; queue: false } | { answer: ScanAnswer; queue: true };

const NO_FIELDS = { service_title: null, service_server: null, tls_organization: null } as const;

export function answerOf(status: ScanStatus, reason?: string): ScanAnswer {
  return { scan: { status, scanned_at: null, ...(reason ? { reason } : {}) }, ...NO_FIELDS };
}

function reportOfRow(row: ScanRow): ScanReport | null {
  if (!row.report) return null;
  try {
    return JSON.parse(row.report) as ScanReport;
  } catch {
    return null;
  }
}

/** The answer a stored row gives, with the row's own time and fields. */
function fromRow(row: ScanRow, status: ScanStatus): ScanAnswer {
  const report = reportOfRow(row);
  const reason = status === 'failed' ? (row.reason ?? undefined) : undefined;
  return {
    scan: {
      status,
      scanned_at: row.scanned_at === null ? null : new Date(Number(row.scanned_at)).toISOString(),
      ...(reason ? { reason } : {}),
    },
    service_title: report?.service_title ?? null,
    service_server: report?.service_server ?? null,
    tls_organization: report?.tls_organization ?? null,
  };
}

export function verdictOf(row: ScanRow | null, now: number): RowVerdict {
  if (!row) return { answer: answerOf('pending'), queue: true };
  if (row.status === 'queued' || row.status === 'running')
    return { answer: fromRow(row, 'pending'), queue: false };
  const status = row.status === 'done' ? 'done' : 'failed';
  if (row.expires_at !== null && Number(row.expires_at) > now)
    return { answer: fromRow(row, status), queue: false };
  return { answer: fromRow(row, 'pending'), queue: true };
}

/** How long a lookup may answer from a row kept in memory: a result until it expires (at most
 * `maxMs`), a pending one `pendingMs` (another instance's worker may finish it). */
export function keepFor(row: ScanRow | null, now: number, pendingMs: number, maxMs: number): number {
  if (row && (row.status === 'done' || row.status === 'failed') && row.expires_at !== null)
    return Math.max(0, Math.min(maxMs, Number(row.expires_at) - now));
  return pendingMs;
}
