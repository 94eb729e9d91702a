/**
 * Curated ASN classification: networks whose kind is well known and that the imported range
 * lists do not always cover. Sources: the operators' own descriptions (PeeringDB "Info Type").
 * Keep entries sorted by ASN; asn-classes.test.ts checks the table's shape.
 */
export type AsnClass = 'hosting' | 'mobile' | 'education' | 'business' | 'isp';

export interface CuratedAsn {
  kind: AsnClass;
  /** Cloud or hosting provider name for `cloud_provider`. */
  provider?: string;
}

export const CURATED_ASNS: ReadonlyMap<number, CuratedAsn> = new Map<number, CuratedAsn>([
  [174, { kind: 'business' }], // Cogent
  [701, { kind: 'isp' }], // Verizon Business/Fios
  [1299, { kind: 'business' }], // Arelion transit
  [2152, { kind: 'education' }], // CENIC
  [2856, { kind: 'isp' }], // BT
  [3215, { kind: 'isp' }], // Orange France
  [3320, { kind: 'isp' }], // Deutsche Telekom
  [3352, { kind: 'isp' }], // Telefonica Spain
  [4134, { kind: 'isp' }], // China Telecom
  [4837, { kind: 'isp' }], // China Unicom
  [6167, { kind: 'mobile' }], // Verizon Wireless (Cellco)
  [6939, { kind: 'business' }], // Hurricane Electric
  [7018, { kind: 'isp' }], // AT&T
  [7922, { kind: 'isp' }], // Comcast
  [8075, { kind: 'hosting', provider: 'Microsoft Azure' }],
  [8881, { kind: 'isp' }], // 1&1 Versatel
  [9808, { kind: 'mobile' }], // China Mobile GPRS
  [11427, { kind: 'isp' }], // Charter (Spectrum)
  [12322, { kind: 'isp' }], // Free SAS
  [13335, { kind: 'hosting', provider: 'Cloudflare' }],
  [14061, { kind: 'hosting', provider: 'DigitalOcean' }],
  [14618, { kind: 'hosting', provider: 'AWS' }],
  [15169, { kind: 'hosting', provider: 'Google' }],
  [16276, { kind: 'hosting', provider: 'OVHcloud' }],
  [16509, { kind: 'hosting', provider: 'AWS' }],
  [16591, { kind: 'isp' }], // Google Fiber
  [20057, { kind: 'mobile' }], // AT&T Mobility
  [20473, { kind: 'hosting', provider: 'Vultr' }],
  [20940, { kind: 'hosting', provider: 'Akamai' }],
  [21928, { kind: 'mobile' }], // T-Mobile USA
  [22394, { kind: 'mobile' }], // Verizon Wireless
  [24940, { kind: 'hosting', provider: 'Hetzner' }],
  [31898, { kind: 'hosting', provider: 'Oracle Cloud' }],
  [36459, { kind: 'hosting', provider: 'GitHub' }],
  [45609, { kind: 'mobile' }], // Bharti Airtel mobile
  [54113, { kind: 'hosting', provider: 'Fastly' }],
  [55836, { kind: 'mobile' }], // Reliance Jio
  [63949, { kind: 'hosting', provider: 'Linode' }],
  [396982, { kind: 'hosting', provider: 'Google Cloud' }],
]);

const EDUCATION =
  /\b(universit|college|school|academ|polytechnic|research and education|institute of technology)/i;
const MOBILE = /\b(mobile|wireless|cellular|mobility)\b/i;
const HOSTING = /\b(hosting|cloud|data ?cent(er|re)s?|colocation|servers?|vps)\b/i;

/** Documented name heuristics for ASNs outside the curated table (README.md). */
export function classifyByName(name: string): AsnClass | null {
  if (EDUCATION.test(name)) return 'education';
  if (MOBILE.test(name)) return 'mobile';
  if (HOSTING.test(name)) return 'hosting';
  return null;
}
