/**
 * The documented country → RIR fallback, used only where no RIR statistics cover a network
 * nor its ASN (README.md). Service regions per https://www.nro.net/about/rirs/.
 */
import type { Rir } from './importers/rir-delegated.ts';

const REGIONS: Record<Rir, string> = {
  ARIN: 'US CA PR VI GU AS MP UM BM BS BB AG AI DM GD KN LC VC KY VG TC MS JM AQ BV HM PM SH',
  LACNIC:
    'AR BO BR CL CO CR CU DO EC SV GF GT GY HN MX NI PA PY PE SR UY VE AW BQ CW SX BZ FK GS TT HT MQ GP BL MF',
  AFRINIC:
    'DZ AO BJ BW BF BI CV CM CF TD KM CG CD CI DJ EG GQ ER SZ ET GA GM GH GN GW KE LS LR LY MG MW ML MR MU YT MA MZ NA NE NG RE RW ST SN SC SL SO ZA SS SD TZ TG TN UG EH ZM ZW IO TF',
  APNIC:
    'AF AU BD BT BN KH CN CK FJ PF HK IN ID JP KI KP KR LA MO MY MV MH FM MN MM NR NP NC NZ NU NF PK PW PG PH PN WS SB LK TW TH TL TK TO TV VU VN WF CX CC',
  RIPE: 'AL AD AM AT AZ BY BE BA BG HR CY CZ DK EE FO FI FR GE DE GI GR GL GG HU IS IE IM IL IT JE JO KZ KG XK LV LB LI LT LU MT MD MC ME NL MK NO OM PS PL PT QA RO RU SM SA RS SK SI ES SJ SE CH SY TJ TR TM UA AE GB UZ VA YE IQ IR KW BH AX EU',
};

const BY_COUNTRY = new Map<string, Rir>();
for (const [rir, list] of Object.entries(REGIONS) as [Rir, string][]) {
  for (const cc of list.split(' ')) if (/^[A-Z]{2}$/.test(cc)) BY_COUNTRY.set(cc, rir);
}

export function rirForCountry(country: string | null): Rir | null {
  return country ? (BY_COUNTRY.get(country) ?? null) : null;
}
