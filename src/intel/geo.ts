/** Extended geolocation (DB-IP city) and the consensus of the country opinions. */
import type { DbipCityRow } from '../dataset/index.ts';
import type { Geolocation } from './types.ts';

const CONTINENTS: Record<string, [string, string]> = {};
const CONTINENT_LISTS: [string, string, string][] = [
  [
    'AF',
    'Africa',
    'DZ AO BJ BW BF BI CV CM CF TD KM CG CD CI DJ EG GQ ER SZ ET GA GM GH GN GW KE LS LR LY MG MW ML MR MU YT MA MZ NA NE NG RE RW ST SN SC SL SO ZA SS SD TZ TG TN UG EH ZM ZW SH',
  ],
  ['AN', 'Antarctica', 'AQ BV GS HM TF'],
  [
    'AS',
    'Asia',
    'AF AM AZ BH BD BT BN KH CN CY GE HK IN ID IR IQ IL JP JO KZ KP KR KW KG LA LB MO MY MV MN MM NP OM PK PS PH QA SA SG LK SY TW TJ TH TL TR TM AE UZ VN YE IO CC CX',
  ],
  [
    'EU',
    'Europe',
    'AX AL AD AT BY BE BA BG HR CZ DK EE FO FI FR DE GI GR GG HU IS IE IM IT JE XK LV LI LT LU MT MD MC ME NL MK NO PL PT RO RU SM RS SK SI ES SJ SE CH UA GB VA',
  ],
  [
    'NA',
    'North America',
    'AI AG AW BS BB BZ BM BQ VG CA KY CR CU CW DM DO SV GL GD GP GT HT HN JM MQ MX MS NI PA PR BL KN LC MF PM VC SX TT TC US VI UM',
  ],
  ['OC', 'Oceania', 'AS AU CK FJ PF GU KI MH FM NR NC NZ NU NF MP PW PG PN WS SB TK TO TV VU WF'],
  ['SA', 'South America', 'AR BO BR CL CO EC FK GF GY PY PE SR UY VE'],
];
for (const [code, name, list] of CONTINENT_LISTS)
  for (const cc of list.split(' ')) CONTINENTS[cc] = [code, name];

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

export function countryName(cc: string | null): string | null {
  if (!cc) return null;
  try {
    const n = regionNames.of(cc);
    return n && n !== cc ? n : null;
  } catch {
    return null;
  }
}

export function geolocationOf(row: DbipCityRow): Geolocation {
  const continent = row.country ? CONTINENTS[row.country] : undefined;
  return {
    country_code: row.country,
    country_name: countryName(row.country),
    region: row.region,
    region_code: null,
    city: row.city,
    postal_code: row.postalCode,
    latitude: row.latitude,
    longitude: row.longitude,
    accuracy_radius: null,
    timezone: row.timezone,
    continent_code: continent?.[0] ?? null,
    continent_name: continent?.[1] ?? null,
  };
}

export interface ProviderOpinion {
  provider: string;
  country: string | null;
  city: string | null;
}

export function consensusOf(providers: ProviderOpinion[]): {
  agreement: number;
  primary_country: string | null;
  providers: ProviderOpinion[];
} {
  const counts = new Map<string, number>();
  let voters = 0;
  for (const p of providers) {
    if (!p.country) continue;
    voters++;
    counts.set(p.country, (counts.get(p.country) ?? 0) + 1);
  }
  let primary: string | null = null;
  let best = 0;
  // Ties go to the earliest provider listed (DB-IP city first).
  for (const p of providers) {
    const n = p.country ? (counts.get(p.country) ?? 0) : 0;
    if (n > best) {
      best = n;
      primary = p.country;
    }
  }
  return {
    agreement: voters === 0 ? 0 : Math.round((best / voters) * 1000) / 1000,
    primary_country: primary,
    providers,
  };
}
