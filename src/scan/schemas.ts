/**
 * The scan's part of the anonymous lookup's answer (GET /v1/public/ip/{ip}), as TypeBox schemas
 * for the route and the OpenAPI document; additive fields (issue #34). A public entry of its own,
 * like intel's, so the CLI does not load TypeBox through index.ts.
 */
import { type Static, Type } from '@sinclair/typebox';

const nullableString = (description: string, examples: string[]) =>
  Type.Union([Type.String(), Type.Null()], { description, examples });

export const ScanState = Type.Object(
  {
    status: Type.Union(
      ['pending', 'done', 'failed', 'disabled', 'refused'].map((s) => Type.Literal(s)),
      {
        description:
          '`done`: the fields below are from the scan at scanned_at; `pending`: a scan is queued or running (the fields are the previous result, or null); `failed`: no port answered (reason says how each ended); `disabled`: NETREP_SCAN is off on this instance; `refused`: this address is never scanned (not public unicast, or excluded by the operator), or this client may start no more scans now',
        examples: ['done'],
      },
    ),
    scanned_at: nullableString('When the result shown was scanned (ISO 8601), null before any', [
      '2026-11-27T12:00:00.000Z',
    ]),
    reason: Type.Optional(
      Type.String({
        description: 'Why `failed` or `refused`',
        examples: ['10.0.0.1 is private address space'],
      }),
    ),
  },
  {
    description:
      'The service scan of this address: one TLS and one HTTP request per port, at most once per TTL',
  },
);

/** The fields a lookup's answer gains. */
export const ScanFields = Type.Object({
  scan: ScanState,
  service_title: nullableString(
    "The <title> of the address's web page (entities decoded, at most 256 characters); null until scanned or when none",
    ['Welcome to nginx!'],
  ),
  service_server: nullableString("The web server's Server header; null until scanned or when none", [
    'nginx/1.26.3',
  ]),
  tls_organization: nullableString(
    'The organisation (subject O) of the certificate on the TLS port, read even when self-signed or expired; null until scanned or when none',
    ['Example Hosting Ltd'],
  ),
});

export type ScanFields = Static<typeof ScanFields>;
