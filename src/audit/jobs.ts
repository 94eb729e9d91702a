/**
 * Audit job operations for callers (CONTRACT §1, §10): create or reuse, get, list, full result,
 * cancel. Every read is scoped to the owner: another owner's job does not exist for the caller.
 */
import type { Clock } from '../core/clock.ts';
import { AppError } from '../core/errors.ts';
import { canonicalRequest, rangeOf, requestHash } from './canonical-request.ts';
import type { DatasetVersions } from './dataset-versions.ts';
import { eventView, jobView, observationView, targetView } from './job-view.ts';
import { type AddressRange, createPopulation } from './population.ts';
import { samplePopulation } from './sampling.ts';
import type { AuditStore } from './store.ts';
import type { AuditJob, AuditResult, CreateAuditJobBody } from './types.ts';

export interface Caller {
  ownerId: number;
  keyId: number | null;
}

export interface AuditJobs {
  create(body: CreateAuditJobBody, by: Caller): Promise<{ job: AuditJob; reused: boolean }>;
  get(id: number, ownerId: number): Promise<AuditJob | null>;
  list(ownerId: number, limit: number, offset: number): Promise<AuditJob[]>;
  result(id: number, ownerId: number): Promise<AuditResult | null>;
  cancel(id: number, by: Caller): Promise<{ job: AuditJob; cancellation_accepted: boolean } | null>;
}

export const actorOf = (by: Caller): string =>
  by.keyId === null ? `owner:${by.ownerId}` : `key:${by.keyId}`;

export function createAuditJobs(options: {
  store: AuditStore;
  clock: Clock;
  datasets: DatasetVersions;
  /** Probes each sampled address gets (one per zone, plus FCrDNS): progress.planned. */
  probesPerAddress: () => number;
}): AuditJobs {
  const { store, clock, datasets } = options;

  const mustGet = async (id: number, ownerId: number) => {
    const row = await store.job(id, ownerId);
    return row ? jobView(row) : null;
  };

  return {
    async create(body, by) {
      const request = canonicalRequest(body);
      if (!datasets.has(request.dataset_version)) {
        throw new AppError(
          'DATASET_VERSION_UNAVAILABLE',
          `dataset version ${request.dataset_version} is not held by this instance`,
        );
      }
      const hash = requestHash(request);
      const now = clock();
      const reusable = await store.findReusable(by.ownerId, hash, now);
      if (reusable) return { job: jobView(reusable), reused: true };

      const ranges: AddressRange[] = [...request.ips, ...request.cidrs].map(rangeOf);
      for (const asn of request.asns) ranges.push(...datasets.asnRanges(request.dataset_version, asn));
      const population = createPopulation(ranges);
      if (population.size > BigInt(request.max_population)) {
        throw new AppError(
          'POPULATION_TOO_LARGE',
          `targets expand to ${population.size} units (${population.ipv4Size} IPv4 addresses and ${population.ipv6Size} IPv6 /64s), more than max_population ${request.max_population}`,
        );
      }
      if (population.size === 0n) {
        throw new AppError(
          'INVALID_BODY',
          `the targets hold no address in dataset version ${request.dataset_version}`,
        );
      }
      const { sample, manifest } = samplePopulation(population, {
        seed: request.seed,
        datasetVersion: request.dataset_version,
        maxSamples: request.max_samples,
      });
      const row = await store.insertJob(
        {
          ownerId: by.ownerId,
          keyId: by.keyId,
          requestHash: hash,
          request: { ...request, freshness_seconds: body.freshness_seconds ?? null },
          datasetVersion: request.dataset_version,
          seed: request.seed,
          samplingManifest: manifest,
          freshnessSeconds: body.freshness_seconds ?? null,
          progress: { done: 0, planned: sample.length * options.probesPerAddress() },
        },
        sample.map((s) => ({
          target: s.address,
          samplingManifest: { population_index: s.index.toString() },
        })),
        { type: 'created', actor: actorOf(by), detail: { request_hash: hash } },
        now,
      );
      return { job: jobView(row), reused: false };
    },

    get: mustGet,

    async list(ownerId, limit, offset) {
      return (await store.listJobs(ownerId, limit, offset)).map(jobView);
    },

    async result(id, ownerId) {
      const row = await store.job(id, ownerId);
      if (!row) return null;
      const [targets, observations, events] = await Promise.all([
        store.targets(id),
        store.observations(id),
        store.events(id),
      ]);
      return {
        job: jobView(row),
        targets: targets.map(targetView),
        observations: observations.map(observationView),
        events: events.map(eventView),
      };
    },

    async cancel(id, by) {
      const row = await store.job(id, by.ownerId);
      if (!row) return null;
      const now = clock();
      const actor = actorOf(by);
      // SERVICE-SPEC §3.4: a queued job closes at once; a running one stops between probes.
      const accepted =
        (await store.cancelQueued(id, actor, now)) ||
        (await store.requestCancel(id, actor, now)) ||
        (row.status === 'running' && row.cancel_requested === 1);
      const job = await mustGet(id, by.ownerId);
      return job ? { job, cancellation_accepted: accepted } : null;
    },
  };
}
