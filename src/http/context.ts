/**
 * What the HTTP layer is given (composed by app.ts) and what it adds to Fastify's types.
 * Route access is data on the route: `config: { access: { kind: 'key', permission: 'ip:read' } }`.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { Accounts, Feature, Permission, Principal } from '../accounts/index.ts';
import type { AuditJobs } from '../audit/index.ts';
import type { Blocklist, ListingType } from '../blocklist/index.ts';
import type { Config } from '../config.ts';
import type { Clock } from '../core/clock.ts';
import type { DnsClient } from '../core/dns/index.ts';
import type { DatasetStatus } from '../dataset/index.ts';
import type { HopEnrichment } from '../headers/index.ts';
import type { IntelRuntime } from '../intel/index.ts';
import type { LimitState, Limits, MinuteBucket } from '../limits/index.ts';
import type { ListCheck } from '../listcheck/index.ts';
import type { Reports } from '../reports/index.ts';
import type { Reputation } from '../reputation/index.ts';
import type { Scan } from '../scan/index.ts';
import type { Store } from '../store/index.ts';
import type { Telemetry } from '../telemetry/index.ts';
import type { Warmup } from '../warmup/index.ts';
import type { Webhooks } from '../webhooks/index.ts';
import type { DatasetStart } from './readiness.ts';

export type Access =
  /** No key, no limit: health, readiness, metrics, docs. */
  | { kind: 'none' }
  /** Anonymous, limited per client IP in a shared bucket (spec §8). */
  | { kind: 'public'; bucket: MinuteBucket }
  /** X-API-Key required with this permission (and feature); counted against the daily quota. */
  | {
      kind: 'key';
      permission: Permission;
      feature?: Feature;
      /** An extra per-key per-minute bucket (warm-up 60/min, domain DNS 30/min). */
      minuteBucket?: MinuteBucket;
      /** The 401 code when no key header is sent at all (telemetry says AUTH_REQUIRED). */
      missingKeyCode?: 'UNAUTHORIZED' | 'AUTH_REQUIRED';
    };

export interface RouteConfigExtras {
  access?: Access;
  /** The feed catalog is the one response without the envelope. */
  envelope?: boolean;
}

export interface ReadinessCheck {
  name: string;
  ok: boolean;
  detail?: string;
  /** Serving, but with less than usual (Redis away: limits counted per instance). */
  degraded?: boolean;
  /** The dataset check while a start builds or loads its first snapshot: what and the ETA. */
  start?: DatasetStart;
}

/**
 * Everything routes may call, complete: app.ts builds every service before the HTTP app. A
 * service that cannot answer yet (the IP/ASN dataset before its first snapshot) says so itself,
 * and its routes answer 503 NOT_READY.
 */
export interface HttpServices {
  config: Config;
  clock: Clock;
  store: Store;
  accounts: Accounts;
  limits: Limits;
  readiness(): Promise<ReadinessCheck[]>;
  datasetVersion(): number | null;
  /** What the serving snapshot holds (source families, age) and how its updates went (/readyz, dashboard). */
  datasetStatus(): DatasetStatus;
  /** The service-owned blocklist (spec §2.4). */
  blocklist: Blocklist;
  /** Active listing type of an address, synchronous from memory (threat score, reputation). */
  listingFor(ip: string): { type: ListingType } | null;
  /** The one DNS client (NETREP_DNS_SERVERS): domain checks, DMARC lookups, PTR, audit probes. */
  dns: DnsClient;
  /** Intel for a header hop IP; null while no dataset is loaded (the hop's fields are then null). */
  enrichIp: (ip: string) => HopEnrichment | null;
  /** The serving IP/ASN dataset; `current()` is null until a snapshot is loaded. */
  intel: IntelRuntime;
  telemetry: Telemetry;
  reputation: Reputation;
  warmup: Warmup;
  /** Audit jobs of the caller (SERVICE-SPEC §2.11). */
  audit: AuditJobs;
  /** Saved IPs and signed webhooks (CONTRACT §11). */
  webhooks: Webhooks;
  /** The public DNSBLs of NETREP_DNSBL_CHECK_ZONES, asked for one address (issue 36). */
  listCheck: ListCheck;
  /** DMARC aggregate, failure and SMTP TLS reports per owner (issue 38). */
  reports: Reports;
  /** The service scan of a looked-up address (NETREP_SCAN; issue #34). */
  scan: Scan;
}

/** The Fastify instance routes are registered on: request parts typed from their TypeBox schemas. */
export type HttpApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** One route file: registers its routes on the app with the services they call. */
export type RouteModule = (app: HttpApp, services: HttpServices) => void;

declare module 'fastify' {
  interface FastifyContextConfig extends RouteConfigExtras {}
  interface FastifyRequest {
    principal: Principal | null;
    clientIp: string;
    limitState: LimitState | null;
    startedAt: bigint;
  }
}
