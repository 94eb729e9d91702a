/**
 * Progress of `netrep dataset build|update`: one updating line with a bar, the step and an ETA on
 * a terminal; plain `[dataset] phase: message` lines otherwise (stable for logs and tests).
 */
import { SingleBar } from 'cli-progress';
import type { ProgressEvent } from '../dataset/index.ts';

/** What the ETA is weighed by: the upstream files the build will read and whether a diff follows. */
export interface BuildPlan {
  files: readonly { id: string; bytes: number; gzip: boolean }[];
  hasPrevious: boolean;
}

/*
 * Step costs in seconds of a reference build (npm packages alone ~15 s, with all of shared/data
 * ~40 s). Only their ratios matter: the ETA scales them by the speed observed so far.
 */
const NPM_READ = 4.5;
const BYTES_PER_SECOND = 3e6;
/** A gzipped file (RPKI ROAs) costs its inflated size to parse. */
const GZIP_FACTOR = 8;
const MERGE_V4 = 7;
const MERGE_V6 = 2.8;
const ASN_TABLE = 3;
const WRITE = 1.2;
const HISTORY = 2;

interface Weights {
  npm: number;
  files: Map<string, { before: number; cost: number }>;
  upstream: number;
  mergeV4: number;
  mergeV6: number;
  asnTable: number;
  write: number;
  history: number;
  total: number;
}

function weigh(plan: BuildPlan): Weights {
  const files = new Map<string, { before: number; cost: number }>();
  let upstream = 0;
  for (const f of plan.files) {
    const cost = (f.bytes * (f.gzip ? GZIP_FACTOR : 1)) / BYTES_PER_SECOND;
    files.set(f.id, { before: upstream, cost });
    upstream += cost;
  }
  // Upstream rows also lengthen the merge and the files written after it.
  const w = {
    npm: NPM_READ,
    files,
    upstream,
    mergeV4: MERGE_V4 + upstream,
    mergeV6: MERGE_V6 + 0.3 * upstream,
    asnTable: ASN_TABLE,
    write: WRITE + 0.35 * upstream,
    history: plan.hasPrevious ? HISTORY + 0.6 * upstream : 0,
    total: 0,
  };
  w.total = w.npm + w.upstream + w.mergeV4 + w.mergeV6 + w.asnTable + w.write + w.history;
  return w;
}

export interface BuildEta {
  /** Feeds one event; returns the share of the build done when it was emitted (0..1, never falls). */
  observe(e: ProgressEvent): number;
  /** Milliseconds left, or null until enough of the build is done to extrapolate. */
  remainingMs(elapsedMs: number): number | null;
}

/** Maps build events to the share of work done, weighing each step by its reference cost. */
export function createBuildEta(plan: BuildPlan): BuildEta {
  const w = weigh(plan);
  let done = 0;
  let events = 0;
  let merges = 0;
  let sourceSeen = false;
  const readEnd = w.npm + w.upstream;
  const readAt = (source: string | undefined): number | null => {
    if (source !== undefined) {
      sourceSeen = true;
      const f = w.files.get(source);
      return f ? w.npm + f.before : null;
    }
    // The first event opens the build; a later one without a source reports what was read.
    return events === 1 && !sourceSeen ? 0 : readEnd;
  };
  const at = (e: ProgressEvent): number | null => {
    switch (e.phase) {
      case 'read':
        return readAt(e.source);
      case 'merge':
        merges++;
        if (merges === 1) return readEnd;
        return merges === 2 ? readEnd + w.mergeV4 : readEnd + w.mergeV4 + w.mergeV6;
      case 'write':
        return readEnd + w.mergeV4 + w.mergeV6 + w.asnTable;
      case 'history':
        return readEnd + w.mergeV4 + w.mergeV6 + w.asnTable + w.write;
      case 'done':
        return w.total;
      default:
        return null;
    }
  };
  return {
    observe(e) {
      events++;
      const reached = at(e);
      if (reached !== null) done = Math.max(done, Math.min(1, reached / w.total));
      return done;
    },
    remainingMs(elapsedMs) {
      if (done >= 1) return 0;
      if (done < 0.03 || elapsedMs < 1000) return null;
      return (elapsedMs * (1 - done)) / done;
    },
  };
}

export function formatEta(ms: number | null): string {
  if (ms === null) return '--';
  const s = Math.ceil(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

export interface BuildProgress {
  event(e: ProgressEvent): void;
  stop(): void;
}

/** Log lines when `stream` is not a terminal; otherwise one line redrawn in place. */
export function createBuildProgress(
  stream: NodeJS.WriteStream,
  plan: BuildPlan,
  now: () => number = Date.now,
): BuildProgress {
  if (!stream.isTTY) {
    return {
      event: (e) => stream.write(`[dataset] ${e.phase}: ${e.message}\n`),
      stop: () => {},
    };
  }
  const eta = createBuildEta(plan);
  const started = now();
  const width = Math.max(40, (stream.columns || 100) - 48);
  const bar = new SingleBar({
    format: 'dataset [{bar}] {percentage}% ETA {eta_text} | {step}',
    barsize: 20,
    stream,
    hideCursor: true,
  });
  bar.start(1000, 0, { eta_text: '--', step: 'starting' });
  return {
    event(e) {
      const share = eta.observe(e);
      const step = `${e.phase}: ${e.message}`;
      bar.update(Math.round(share * 1000), {
        eta_text: formatEta(eta.remainingMs(now() - started)),
        step: step.length > width ? `${step.slice(0, width - 1)}…` : step,
      });
      // The build holds the event loop between events, so cli-progress's redraw timer would
      // skip steps: draw each one now.
      bar.render();
    },
    stop: () => bar.stop(),
  };
}
