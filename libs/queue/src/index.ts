export * from './catalog';
export * from './queues';
export * from './signal-bus';
export * from './preflight';
export * from './reconciler';
export * from './redis-watch';
export * from './daily-counter';
export * from './turn-reservations';
