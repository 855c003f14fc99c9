export * from './schema';
export * from './errors';
export * from './ids';
export * from './decode';
export * from './encode';
export * from './card';
export * from './rpc';
export * from './push';
