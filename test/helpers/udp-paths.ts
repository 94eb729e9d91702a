/**
 * The DNSBL server's two UDP paths, for suites that run against each: node:dgram always, and the
 * batched addon (src/dnsbl/batch-udp.ts) where it is built. batch-udp.test.ts fails under CI when
 * it is not, so CI never skips the batched path unnoticed.
 */
import { dnsUdp } from '../../src/dnsbl/batch-udp.ts';

export const UDP_PATHS: { name: string; batchedUdp: boolean }[] = [
  { name: 'node:dgram', batchedUdp: false },
  ...(dnsUdp ? [{ name: 'the batched addon', batchedUdp: true }] : []),
];
