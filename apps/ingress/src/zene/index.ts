export { ZeneController } from './zene.controller';
export { ZeneService } from './zene.service';
export { ZeneRunService } from './zene-run.service';
