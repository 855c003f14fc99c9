export { AgUiController } from './ag-ui.controller';
export { AgUiRuns } from './ag-ui.runs';
