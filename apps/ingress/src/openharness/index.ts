export { OpenHarnessController } from './openharness.controller';
