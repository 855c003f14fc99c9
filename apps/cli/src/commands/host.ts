import { CliConfig, ConfigError, parseConfig } from '@hub/config';
import { HOST_USAGE, parseHostArgs, type HostArgs } from '../host/args';
import { preflight } from '../host/hub-client';
import { readLines } from '../host/lines';
import { HostSession, writeError, type ExitCode, type HostUnavailable } from '../host/session';

const unknownIds = { request_id: 'unknown', session_id: null };

/**
 * `hub host --protocol v1 --bridge-compat --single-request`: the zene host protocol on
 * stdin/stdout, as a thin client of `POST /v1/zene`, so a command-provider bridge (clawbridge)
 * runs the hub exactly as it runs zene. stdout carries JSON lines only; logs go to stderr.
 * Never throws: every way out is one JSON line and an exit code.
 */
export async function host(argv: readonly string[]): Promise<ExitCode> {
  // A reader that went away must not turn into an unhandled EPIPE.
  process.stdout.on('error', (e) => process.stderr.write(`${JSON.stringify({ level: 'warn', msg: 'stdout closed', error: e.message })}\n`));
  // Known before the flags parse, so even a flag error is answered in the caller's shape.
  const bridgeCompat = argv.some((a) => a === '--bridge-compat' || a === '--bridge-compat=true');
  try {
    return await run(argv, bridgeCompat);
  } catch (e) {
    process.stderr.write(`${JSON.stringify({ level: 'error', msg: 'zene host failed', error: (e as Error)?.stack ?? String(e) })}\n`);
    await writeError(bridgeCompat, unknownIds, 'INTERNAL', 'the host failed; see its stderr');
    return 4;
  }
}

async function run(argv: readonly string[], bridgeCompat: boolean): Promise<ExitCode> {
  let args: HostArgs;
  try {
    args = parseHostArgs(argv);
  } catch (e) {
    // The invocation itself is broken: answer at once, without waiting on stdin.
    await writeError(bridgeCompat, unknownIds, 'INTERNAL', `${(e as Error).message}\nusage: ${HOST_USAGE}`);
    return 3;
  }
  const lines = readLines(process.stdin, args.maxInputBytes);
  const hub = await hubOf(args);
  // Without a hub, the request is still read first: the reply names its request_id and session_id.
  if ('code' in hub) return new HostSession(args, null).unavailable(lines, hub);
  const session = new HostSession(args, hub);
  return args.singleRequest ? session.single(lines) : session.serve(lines);
}

/** The hub to forward to, or why the host cannot serve (exit 3): protocol, configuration, preflight. */
async function hubOf(args: HostArgs): Promise<{ url: string; apiKey: string } | HostUnavailable> {
  if (args.protocol !== 'v1') return { code: 'INTERNAL', message: `unsupported protocol: ${args.protocol} (only v1)` };
  let config: CliConfig;
  try {
    config = parseConfig(CliConfig);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return { code: 'INTERNAL', message: e.message };
  }
  if (!config.HUB_API_KEY) return { code: 'PROVIDER_AUTH', message: 'HUB_API_KEY is not set' };
  const failure = await preflight(config.HUB_URL, config.HUB_API_KEY);
  return failure ?? { url: config.HUB_URL, apiKey: config.HUB_API_KEY };
}
