export * from './access-tokens';
export * from './clients';
export * from './credentials';
export * from './deployment';
export * from './identity-providers';
export * from './provider';
