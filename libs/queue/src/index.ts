export * from './catalog';
export * from './queues';
export * from './cancel-bus';
export * from './preflight';
export * from './harness-stop-bus';
