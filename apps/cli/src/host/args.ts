import { BusyPolicy } from '@hub/domain';
import { DEFAULT_MAX_INPUT_BYTES } from '@hub/protocol-zene';

/** `hub host` flags, named as upstream's `zene host` names them, plus the hub's own. */
export interface HostArgs {
  protocol: string;
  /** The flat one-line reply (clawbridge's `zene-host-v1`); otherwise protocol-mode lines. */
  bridgeCompat: boolean;
  /** One request, one reply, exit; otherwise lines until end of input. */
  singleRequest: boolean;
  /** A longer line is `INVALID_REQUEST` (UTF-8 bytes, newline excluded). */
  maxInputBytes: number;
  /** For runs that name none; the hub's zene default is `reject` (`BUSY`). */
  busyPolicy?: BusyPolicy;
  /** How long past `timeout_ms` the host waits for the hub before answering `TIMEOUT` itself. */
  deadlineMarginMs: number;
}

export const HOST_USAGE = `hub host --protocol v1 [--bridge-compat] [--single-request [true|false]]
         [--max-input-bytes N (default ${DEFAULT_MAX_INPUT_BYTES})] [--busy-policy reject|enqueue|interrupt]
         [--deadline-margin-ms N (default 3000)]      (HUB_URL, HUB_API_KEY)`;

const BOOLEAN = new Set(['bridge-compat', 'single-request']);
const VALUED = new Set(['protocol', 'max-input-bytes', 'busy-policy', 'deadline-margin-ms']);

/** Parses the flags; throws an Error naming the bad one (the host answers it as a config failure). */
export function parseHostArgs(argv: readonly string[]): HostArgs {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = splitFlag(argv[i]);
    if (BOOLEAN.has(name)) {
      const next = argv[i + 1];
      const value = inline ?? (next === 'true' || next === 'false' ? (i++, next) : 'true');
      if (value !== 'true' && value !== 'false') throw new Error(`--${name} takes true or false, not ${JSON.stringify(value)}`);
      flags.set(name, value);
    } else if (VALUED.has(name)) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new Error(`--${name} needs a value`);
      flags.set(name, value);
    } else throw new Error(`unknown argument ${JSON.stringify(argv[i])}`);
  }
  return {
    protocol: flags.get('protocol') ?? 'v1',
    bridgeCompat: flags.get('bridge-compat') === 'true',
    singleRequest: flags.get('single-request') === 'true',
    maxInputBytes: positiveInt(flags, 'max-input-bytes', DEFAULT_MAX_INPUT_BYTES),
    busyPolicy: flags.has('busy-policy') ? BusyPolicy.parse(flags.get('busy-policy')) : undefined,
    deadlineMarginMs: positiveInt(flags, 'deadline-margin-ms', 3000),
  };
}

function splitFlag(arg: string): [string, string | undefined] {
  if (!arg.startsWith('--')) throw new Error(`unexpected argument ${JSON.stringify(arg)}`);
  const eq = arg.indexOf('=');
  return eq === -1 ? [arg.slice(2), undefined] : [arg.slice(2, eq), arg.slice(eq + 1)];
}

function positiveInt(flags: Map<string, string>, name: string, fallback: number): number {
  const raw = flags.get(name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, not ${JSON.stringify(raw)}`);
  return n;
}
