export * from './harness-state';
export * from './apply-ops';
export { evolveHarness, foldHarness, initialHarnessView } from './harness-view';
export type { HarnessView, RequestedPrompt } from './harness-view';
