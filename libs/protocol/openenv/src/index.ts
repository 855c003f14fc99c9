export * from './schema';
export * from './encode';
export * from './decode';
export * from './observation';
export * from './llm-request';
