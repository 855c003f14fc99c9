export { ConfigError, type ConfigProblem } from './errors';
export { parseConfig, type ConfigSchema, type Env, type ParseConfigOptions } from './parse';
export {
  CliConfig,
  IngressConfig,
  KNOWN_SETTINGS,
  LOG_LEVELS,
  MODEL_PROVIDERS,
  TRACE_EXPORTERS,
  WorkerConfig,
  mcpStdioAllowlist,
  mcpHttpAllowlist,
  harnessAllowlist,
  queuePrefix,
  redisSentinel,
} from './schemas';
export { isSecretName } from './redact';
export { runUntilSignal, settingsOrExit } from './boot';
export { childProcessBaseEnv } from './child-env';
export { serviceSettings, type ServiceSettings } from './service-settings';
export { commandRule, neverFromTenant, parseCommandRules, ruleEnv, tenantEnvRefused, type CommandRule } from './command-rules';
