export * from './errors';
export * from './metadata';
export * from './events/events';
export * from './events/recorded';
export * from './commands/commands';
