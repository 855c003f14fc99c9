import { CliConfig, ConfigError, parseConfig } from '@hub/config';
import { runAcpBridge } from '../acp/bridge';

const log = (level: string, msg: string, extra: Record<string, unknown> = {}) => process.stderr.write(`${JSON.stringify({ level, msg, ...extra })}\n`);

/**
 * `hub acp`: the hub as an ACP agent over stdio, for editors that launch an agent command. A
 * thin pipe to `WS /v1/acp` of HUB_URL with HUB_API_KEY; stdout carries protocol messages only.
 */
export async function acp(): Promise<number> {
  process.stdout.on('error', (e) => log('warn', 'stdout closed', { error: e.message }));
  let config: CliConfig;
  try {
    config = parseConfig(CliConfig);
  } catch (e) {
    log('error', e instanceof ConfigError ? e.message : String(e));
    return 2;
  }
  if (!config.HUB_API_KEY) {
    log('error', 'hub acp needs HUB_API_KEY (and HUB_URL, default http://127.0.0.1:8080)');
    return 2;
  }
  return runAcpBridge({
    hubUrl: config.HUB_URL,
    apiKey: config.HUB_API_KEY,
    maxLineBytes: config.HUB_MAX_FRAME_BYTES,
    input: process.stdin,
    output: process.stdout,
    log,
  });
}
