/**
 * The intel answers' TypeBox schemas, for the HTTP routes and the OpenAPI document. A public
 * entry of its own so that index.ts (and so `netrep lookup`, which loads only the dataset and
 * intel modules) does not load TypeBox's ~200 modules.
 */
export * from './types.ts';
