export * from './access-tokens';
export * from './clients';
export * from './console-sign-in';
export * from './credentials';
export * from './deployment';
export * from './identity-providers';
export * from './person-sessions';
export * from './provider';
