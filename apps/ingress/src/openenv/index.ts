export { OpenEnvController } from './openenv.controller';
export { OpenEnvEpisodes } from './openenv-episodes';
export { OpenEnvHarnessGateway } from './openenv-harness.gateway';
export { OpenEnvMcp } from './openenv-mcp';
export { OpenEnvWsGateway } from './openenv-ws.gateway';
