export * from './principal';
export * from './api-keys';
