/**
 * Stage 6 of createApp: what listens. The DNSBL server binds now (over the mirror of the domains
 * stage); `listen()` binds the HTTP app of stage 4 on NETREP_LISTEN and the separate metrics
 * listener when NETREP_METRICS_LISTEN asks for one.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Config } from '../config.ts';
import type { Clock } from '../core/clock.ts';
import {
  type BlocklistMirror,
  type DnsblServer,
  type DnsblThread,
  registerDnsblMetrics,
  startDnsblThread,
} from '../dnsbl/index.ts';
import type { HttpApp } from '../http/context.ts';
import { type MetricsListener, startMetricsListener } from '../http/metrics-listener.ts';
import type { StartSettings } from './settings.ts';

export interface ListenersStage {
  /** The DNSBL server (null when NETREP_DNSBL_LISTEN is empty or its port was taken). */
  dnsbl: DnsblServer | null;
  /** Why the DNSBL server is off although NETREP_DNSBL_LISTEN is set. */
  dnsblError: string | null;
  /** Binds the HTTP app (and the separate metrics listener); returns the HTTP address. */
  listen(): Promise<string>;
  /**
   * Binds only the separate metrics listener (`netrep worker`, which serves no API); returns its
   * URL, or null when NETREP_METRICS_LISTEN is unset or `off`.
   */
  listenMetrics(): Promise<string | null>;
  /** `http://host:port` of the separate metrics listener once listening, else null. */
  metricsUrl(): string | null;
  closeMetrics(): Promise<void>;
}

export async function startListenersStage(inputs: {
  config: Config;
  settings: StartSettings;
  clock: Clock;
  log: Logger;
  http: HttpApp;
  metricsRegistry: Registry;
  blocklistMirror: BlocklistMirror;
}): Promise<ListenersStage> {
  const { config, settings, http } = inputs;
  // TXT answers point at the blocklist page, where a rejected sender reads why in a browser;
  // without NETREP_PUBLIC_URL, at the bound HTTP address.
  let publicBase = (config.publicUrl || `http://${config.listen}`).replace(/\/+$/, '');
  // A taken DNSBL port (an mDNS responder on 5353, a second instance) must not take the HTTP API
  // down with it: the DNS server stays off, loudly, and `dnsblError` says why.
  let dnsblError: string | null = null;
  let dnsbl: DnsblThread | null = null;
  const lookupPrefix = () => `${publicBase}/tools/blocklist?ip=`;
  if (config.dnsblListen) {
    try {
      // Its own thread (#35), fed the mirror's changes: its answers do not wait for this loop.
      dnsbl = await startDnsblThread({
        zone: config.dnsblZone,
        listen: config.dnsblListen,
        feed: inputs.blocklistMirror,
        lookupPrefix: lookupPrefix(),
        nice: config.dnsblThreadNice,
        sliceUs: config.dnsblThreadSliceUs,
        udpIo: config.dnsblUdpIo,
        threads: config.dnsblThreads,
        logger: inputs.log,
        clock: inputs.clock,
        tcp: {
          idleTimeoutMs: config.dnsblTcpIdleTimeoutMs,
          frameTimeoutMs: config.dnsblTcpFrameTimeoutMs,
          maxConnectionsPerClient: config.dnsblTcpMaxConnectionsPerClient,
        },
      });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EADDRINUSE' && code !== 'EACCES' && code !== 'EADDRNOTAVAIL') throw err;
      dnsblError = `cannot listen on ${config.dnsblListen} (${code}); the DNSBL server is off: set NETREP_DNSBL_LISTEN to a free address, or empty to silence this`;
      inputs.log.error({ err }, `dnsbl: ${dnsblError}`);
    }
  }
  if (dnsbl) registerDnsblMetrics(inputs.metricsRegistry, dnsbl);
  let metricsListener: MetricsListener | null = null;
  return {
    dnsbl,
    dnsblError,
    async listen() {
      const address = await http.listen(settings.mainAddress);
      if (settings.metricsAt.kind === 'separate' && !metricsListener) {
        metricsListener = await startMetricsListener(settings.metricsAt.address, inputs.metricsRegistry);
      }
      if (!config.publicUrl) {
        publicBase = address;
        dnsbl?.setLookupPrefix(lookupPrefix());
      }
      return address;
    },
    async listenMetrics() {
      if (settings.metricsAt.kind === 'separate' && !metricsListener)
        metricsListener = await startMetricsListener(settings.metricsAt.address, inputs.metricsRegistry);
      return metricsListener?.url ?? null;
    },
    metricsUrl: () => metricsListener?.url ?? null,
    closeMetrics: async () => {
      await metricsListener?.close();
    },
  };
}
