/**
 * The IP lookup answers as the routes send them (issue #34, additive): the anonymous lookup is
 * the intel extended answer plus the service scan's fields; a keyed lookup is the plain answer, or
 * with extended=true all of the anonymous answer's fields. Named components of /openapi.json.
 */
import { type Static, Type } from '@sinclair/typebox';
import { IpAnswerExtended } from '../intel/schemas.ts';
import { ScanFields } from '../scan/schemas.ts';

export const IpAnswerPublic = Type.Composite([IpAnswerExtended, ScanFields]);

export const IpAnswerKeyed = Type.Composite([IpAnswerExtended, Type.Partial(ScanFields)]);
export type IpAnswerKeyed = Static<typeof IpAnswerKeyed>;
