import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress } from 'node:dns';

/** Resolves a host name to every address (the system resolver's `dns.lookup` with `all`, by default). */
export type Resolve = (hostname: string, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const systemResolve: Resolve = (hostname, callback) => dnsLookup(hostname, { all: true }, callback);
import ipaddr from 'ipaddr.js';

/** Why an address was refused, or null when it may be called. */
export type AddressVerdict = { ok: true } | { ok: false; reason: string };

/**
 * The SSRF guard: only public unicast addresses, unless the operator allows ranges by CIDR
 * (`HUB_WEBHOOK_ALLOWED_NETWORKS`, say `127.0.0.0/8` in tests). Loopback, private (RFC 1918,
 * unique local), link-local (so the cloud metadata address 169.254.169.254), carrier-grade NAT,
 * unspecified, multicast and reserved ranges are refused. An IPv4-mapped IPv6 address is judged
 * as the IPv4 address it carries.
 */
export class AddressGuard {
  private readonly allowed: [ipaddr.IPv4 | ipaddr.IPv6, number][];

  constructor(
    allowedCidrs: readonly string[] = [],
    /** Where names are resolved: the system resolver; a test may give a resolver of its own. */
    private readonly resolve: Resolve = systemResolve,
  ) {
    this.allowed = allowedCidrs.map((c) => ipaddr.parseCIDR(c));
  }

  /** Parses `HUB_WEBHOOK_ALLOWED_NETWORKS` (comma-separated CIDRs); throws on a bad one. */
  static fromSetting(value: string | undefined): AddressGuard {
    const cidrs = (value ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    for (const c of cidrs) if (!ipaddr.isValidCIDR(c)) throw new Error(`not a CIDR: ${c}`);
    return new AddressGuard(cidrs);
  }

  check(address: string): AddressVerdict {
    if (!ipaddr.isValid(address)) return { ok: false, reason: `not an IP address: ${address}` };
    let ip = ipaddr.parse(address);
    if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
    if (this.allowed.some(([net, bits]) => net.kind() === ip.kind() && ip.match(net, bits))) return { ok: true };
    const range = ip.range();
    return range === 'unicast' ? { ok: true } : { ok: false, reason: `${address} is in a ${range} range (refused; see HUB_WEBHOOK_ALLOWED_NETWORKS)` };
  }

  /**
   * A `lookup` for `http.request`: resolves the host and refuses unless every address it
   * resolves to passes, so the address connected to is the one checked (no second resolution
   * that a rebinding DNS server could answer differently).
   */
  readonly lookup = (
    hostname: string,
    options: object,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    this.resolve(hostname, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const refused = addresses.map((a) => this.check(a.address)).find((v): v is { ok: false; reason: string } => !v.ok);
      if (refused) return callback(Object.assign(new Error(`address refused: ${refused.reason}`), { code: 'EADDRREFUSED' }), '', 0);
      if ((options as { all?: boolean }).all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/** Whether an error is the guard's refusal. */
export function isAddressRefused(e: unknown): boolean {
  return (e as { code?: unknown })?.code === 'EADDRREFUSED';
}
