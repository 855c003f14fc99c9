export * from './schema';
export * from './errors';
export * from './view';
export * from './state-patch';
export * from './decode';
export * from './encode';
