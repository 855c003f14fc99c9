/** Fixed paths of the two OpenEnv gateways; the public paths (openenv-upgrade.ts) are rewritten onto them. */
export const OPENENV_WS_PATH = '/v1/openenv-ws';
export const OPENENV_HARNESS_PATH = '/v1/openenv-harness';
