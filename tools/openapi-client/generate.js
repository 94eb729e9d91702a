// Generates TypeScript types from an OpenAPI document with openapi-typescript, resolved from
// this workspace so it runs on the TypeScript 5 it depends on.
import openapiTS, { astToString } from 'openapi-typescript';

/** @param {object} document an OpenAPI 3.x document @returns {Promise<string>} a .d.ts text */
export async function generateTypes(document) {
  return astToString(await openapiTS(document));
}
