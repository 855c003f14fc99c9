/**
 * The CLI's settings, loaded by main.ts once the arguments parse: the zod schemas behind them are
 * a good part of a start, which `hub --help` and a usage error do not need.
 */
export { CliConfig, ConfigError, parseConfig, queuePrefix, redisSentinel } from '@hub/config';
