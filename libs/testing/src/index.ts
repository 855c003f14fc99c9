export * from './postgres';
export * from './redis';
export * from './memory-log';
export * from './processes';
export * from './stack';
export * from './transport-client';
export * from './test-harnesses';
export * from './openenv-client';
