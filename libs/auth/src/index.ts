export * from './principal';
export * from './api-keys';
export * from './key-liveness';
export * from './roles';
export * from './grants';
export * from './verified-keys';
export * from './oidc';
