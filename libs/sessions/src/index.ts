export * from './ports';
export * from './command-handler';
export { SessionViews, type LoadedView, type StreamReader, type ViewSnapshots } from './session-views';
export * from './lineage';
export * from './queued-turn-watch';
