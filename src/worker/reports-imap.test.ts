/**
 * The mailbox poller's schedule: polls one at a time, and after failed polls the ticks skipped
 * double (1, 3, 7… intervals), back to every tick after a poll that worked. The poll itself is
 * tested on a real Dovecot (test/integrations/imap-dovecot.test.ts); here it is a stand-in that
 * answers failed or done on demand.
 */
import { describe, expect, it, vi } from 'vitest';
import type { MailboxPoller, PollResult } from '../reports/imap.ts';
import { startReportsImapWorker } from './reports-imap.ts';

function standIn(outcomes: PollResult['outcome'][]) {
  let polls = 0;
  let running = 0;
  let overlapped = false;
  const poller: MailboxPoller = {
    mailbox: 'imaps://u@127.0.0.1:993/INBOX',
    counts: () => ({
      messages: { stored: 0, duplicate: 0, rejected: 0, left: 0 },
      polls: { done: 0, busy: 0, failed: 0 },
    }),
    async poll() {
      // Counted as it starts; it takes 5 ms.
      const outcome = outcomes[Math.min(polls, outcomes.length - 1)] ?? 'done';
      polls++;
      running++;
      if (running > 1) overlapped = true;
      await new Promise((r) => setTimeout(r, 5));
      running--;
      return {
        mailbox: poller.mailbox,
        outcome,
        messages: [],
        remaining: 0,
        error: outcome === 'failed' ? 'x' : null,
      };
    },
  };
  return { poller, polls: () => polls, overlapped: () => overlapped };
}

describe('reports mailbox worker', () => {
  it('skips 1, 3, 7 ticks after failures in a row, then polls every tick again', async () => {
    vi.useFakeTimers();
    try {
      const s = standIn(['failed', 'failed', 'failed', 'failed', 'done']);
      const worker = startReportsImapWorker({ poller: s.poller, intervalMs: 20, scheduled: true });
      const pollsAt: number[] = [];
      for (let tick = 1; tick <= 40; tick++) {
        const before = s.polls();
        await vi.advanceTimersByTimeAsync(20);
        if (s.polls() > before) pollsAt.push(tick);
      }
      // The poll the last tick started ends (5 ms), then the worker stops.
      const stopped = worker.stop();
      await vi.advanceTimersByTimeAsync(10);
      await stopped;
      // Failed at ticks 1, 3, 7, 15; skipped 15 after the fourth; done at 31, then every tick.
      expect(pollsAt.slice(0, 7)).toEqual([1, 3, 7, 15, 31, 32, 33]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('polls every tick while polls work, one at a time; runOnce ignores the backoff', async () => {
    vi.useFakeTimers();
    try {
      const s = standIn(['done']);
      const worker = startReportsImapWorker({ poller: s.poller, intervalMs: 10, scheduled: true });
      const both = Promise.all([worker.runOnce(), worker.runOnce()]);
      await vi.advanceTimersByTimeAsync(200);
      await both;
      const stopped = worker.stop();
      await vi.advanceTimersByTimeAsync(10);
      await stopped;
      // Two on demand, then one a tick (ticks 1-20; the 5 ms polls never overlap a tick).
      expect(s.polls()).toBeGreaterThanOrEqual(20);
      expect(s.overlapped()).toBe(false);
    } finally {
      vi.useRealTimers();
    }
    const failing = standIn(['failed']);
    const manual = startReportsImapWorker({ poller: failing.poller, intervalMs: 60_000, scheduled: false });
    for (let i = 0; i < 3; i++) expect((await manual.runOnce())?.outcome).toBe('failed');
    await manual.stop();
    expect(failing.polls()).toBe(3);
  });

  it('does nothing without a mailbox', async () => {
    const worker = startReportsImapWorker({ poller: null, intervalMs: 10, scheduled: true });
    expect(await worker.runOnce()).toBeNull();
    await worker.stop();
  });
});
