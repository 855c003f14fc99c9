export * from './jsonrpc';
export * from './schema';
export * from './encode';
export * from './permission';
export * from './initialize';
export * from './extensions';
export { acpValidatorsFrom } from './testing/validators';
export * from './live-session';
export * from './mcp-servers';
