/**
 * Stage 3a of createApp: the domain services, each built from the ones before it and the logger,
 * store and Redis of the stages before, in an order in which no callback refers to a service made
 * after it: the pristine-trap set reads reputation evidence straight from the store, the dataset
 * runtime precedes reputation and webhooks, the event sources precede warm-up (its graduations).
 */
import crypto from 'node:crypto';
import os from 'node:os';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { type Accounts, createAccounts, parseQuotaOverrides } from '../accounts/index.ts';
import { type Blocklist, createBlocklist } from '../blocklist/index.ts';
import type { Config } from '../config.ts';
import type { Clock } from '../core/clock.ts';
import { createDnsClient, type DnsClient } from '../core/dns/index.ts';
import { parseIp } from '../core/ip.ts';
import { type BlocklistMirror, startBlocklistMirror } from '../dnsbl/index.ts';
import { packageVersion } from '../http/openapi.ts';
import {
  createIntelRuntime,
  createTrapSet,
  type IntelRuntime,
  intelFactsOf,
  type TrapSet,
  withDeadline,
} from '../intel/index.ts';
import { createLimits, type Limits } from '../limits/index.ts';
import {
  createReputation,
  createReputationStore,
  type IntelFacts,
  listingFactsOf,
  type Reputation,
} from '../reputation/index.ts';
import { createScan, createScanStore, type Scan, scanSettingsOf } from '../scan/index.ts';
import { type Store, sqliteDataVersion } from '../store/index.ts';
import { createTelemetry, type Telemetry } from '../telemetry/index.ts';
import { createWarmup, type Warmup } from '../warmup/index.ts';
import {
  createChangeLog,
  createEventSources,
  createWebhooks,
  hostResolverOf,
  type Webhooks,
} from '../webhooks/index.ts';

export interface DomainInputs {
  config: Config;
  clock: Clock;
  log: Logger;
  store: Store;
  redis: Redis | null;
  /** Redis/limit key prefix (default NETREP_REDIS_PREFIX). */
  limitPrefix?: string;
  /** How long an authenticated key is kept (default: 1 s on PostgreSQL, 60 s on SQLite). */
  authCacheMs?: number;
  /** Dataset facts for reputation (default: the serving dataset's). */
  intelFacts?: IntelFacts;
}

export interface Domains {
  accounts: Accounts;
  limits: Limits;
  blocklist: Blocklist;
  telemetry: Telemetry;
  /** The in-memory copy of the active listings that DNS answers from. */
  blocklistMirror: BlocklistMirror;
  trapSet: TrapSet;
  /** The one DNS client (NETREP_DNS_SERVERS). */
  dns: DnsClient;
  /** The serving IP/ASN dataset (nothing loaded yet: the dataset stage loads it). */
  intelRuntime: IntelRuntime;
  reputation: Reputation;
  webhooks: Webhooks;
  eventSources: ReturnType<typeof createEventSources>;
  warmup: Warmup;
  /** The service scan (NETREP_SCAN; issue #34). */
  scan: Scan;
}

export async function buildDomains(inputs: DomainInputs): Promise<Domains> {
  const { config, clock, log, store } = inputs;
  const accounts = createAccounts({
    store,
    clock,
    // SQLite: cache until another process writes the file (data_version moves, read at most every
    // 5 ms), so a key revoked with the CLI fails within 5 ms; PostgreSQL: one second across instances.
    authCacheMs: inputs.authCacheMs ?? (store.dialect === 'postgres' ? 1000 : 60_000),
    ...(store.sqlite ? { changeToken: sqliteDataVersion(store.sqlite, 5) } : {}),
    quotaOverrides: parseQuotaOverrides(config.quotaOverrides),
  });
  const limits = createLimits({
    store,
    redis: inputs.redis,
    clock,
    prefix: inputs.limitPrefix ?? config.redisPrefix,
    minInstances: config.limitsInstances,
  });
  const blocklist = createBlocklist({ store, clock });
  const telemetry = createTelemetry({ store, clock });
  const blocklistMirror = await startBlocklistMirror({ blocklist, clock, logger: log });
  // Threat score signal: production pristine-trap hits of the last 30 days, held in memory, read
  // from the reputation evidence in the store (reputation itself is built on the dataset below,
  // whose threat score asks this set).
  const evidence = createReputationStore(store);
  const trapSet = createTrapSet({ read: (since) => evidence.pristineTrapIpsSince(since), clock });
  const dns = createDnsClient({ servers: config.dnsServers });
  // Until a snapshot is loaded (the dataset stage) the IP and ASN routes answer 503 NOT_READY.
  const intelRuntime = createIntelRuntime({
    dataDir: config.dataDir,
    clock,
    signals: { listingFor: blocklistMirror.listingFor, pristineTrapHitRecent: trapSet.has },
    reverseDns: withDeadline((ip) => dns.ptr(ip), 1000),
    log: (msg) => log.info(msg),
  });
  const reputation = createReputation({
    store,
    clock,
    telemetry,
    // Reputation reads listings through this narrow interface (spec §2.5 listing signals).
    listings: listingFactsOf(blocklist),
    intel: inputs.intelFacts ?? intelFactsOf(() => intelRuntime.current()),
    onPristineTrapsRecorded: (hits) => trapSet.add(hits),
    onWriteError: (err) => log.error({ err }, 'reputation: computations not written yet (kept, tried again)'),
  });
  // A saved IP's compared answer: its baseline when saved, then diffed per dataset version.
  const savedIpLookup = (ip: string) => {
    const parsed = parseIp(ip);
    const answer = parsed ? intelRuntime.current()?.lookup(parsed) : null;
    return answer ? { threat_level: answer.threat.level, flags: answer.netrep } : null;
  };
  const datasetVersion = () => intelRuntime.current()?.datasetVersion ?? null;
  const webhooks = createWebhooks({
    store,
    clock,
    // The SSRF guard resolves through the service's one DNS client (NETREP_DNS_SERVERS).
    resolveHost: hostResolverOf(dns),
    allowPrivate: config.webhookAllowPrivate,
    retry: { baseMs: config.webhookRetryBaseMs, maxAttempts: config.webhookMaxAttempts },
    random: Math.random,
    lookup: savedIpLookup,
    datasetVersion,
  });
  const eventSources = createEventSources({
    webhooks,
    changeLog: createChangeLog(store.db),
    lookup: savedIpLookup,
    datasetVersion,
    clock,
  });
  const warmup = createWarmup({
    store,
    clock,
    reputation,
    // Graduations reach the classifying key owner's webhooks as `email_pool` events (spec §6).
    onGraduation: (events) => {
      eventSources.emitGraduations(events).catch((err: unknown) => log.warn({ err }, 'graduation events'));
    },
  });
  // Off (the default), lookups answer `disabled` from memory and nothing is ever queued.
  const scan = createScan({
    settings: scanSettingsOf(config, packageVersion()),
    store: createScanStore(store),
    clock,
    worker: `${os.hostname()}-${process.pid}-${crypto.randomBytes(3).toString('hex')}`,
  });
  void trapSet.refresh();
  return {
    scan,
    accounts,
    limits,
    blocklist,
    telemetry,
    blocklistMirror,
    trapSet,
    dns,
    intelRuntime,
    reputation,
    webhooks,
    eventSources,
    warmup,
  };
}
