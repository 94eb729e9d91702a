/** Answer shapes shared by the DNS client and its raw fallback query (raw-query.ts). */
export interface MxAnswer {
  exchange: string;
  priority: number;
}
