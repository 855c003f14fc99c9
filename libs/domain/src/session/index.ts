export * from './session-state';
export * from './session-decider';
