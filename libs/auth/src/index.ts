export * from './principal';
export * from './api-keys';
export * from './key-liveness';
