export * from './catalog';
export * from './queues';
export * from './cancel-bus';
export * from './preflight';
