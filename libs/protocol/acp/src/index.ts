export * from './jsonrpc';
export * from './schema';
export * from './encode';
export * from './permission';
export * from './initialize';
export { acpValidatorsFrom, STANDARD_SESSION_UPDATES } from './testing/validators';
