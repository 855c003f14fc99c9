export * from './session-state';
export * from './session-decider';
export * from './session-view';
export * from './fork-plan';
export * from './quorum';
export * from './approval-deadline';
