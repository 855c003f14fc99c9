import { z } from 'zod';

/**
 * One entry of an operator's command allowlist (`HUB_MCP_STDIO_COMMANDS`, `HUB_HARNESS_COMMANDS`):
 * the command-line prefix a tenant's configuration may run, and the environment that process
 * gets. Entries are `;`-separated; an entry's last word may be `env:` followed by `,`-separated
 * items: `NAME=VALUE` is set by the operator for every run of that command, a bare `NAME` may be
 * set by a tenant. Nothing else from a tenant reaches the process (issue 11: an allowed `node`
 * entry plus a tenant's `NODE_OPTIONS=--import=data:...` ran attacker code on our hosts).
 *
 *   HUB_MCP_STDIO_COMMANDS="node /opt/mcp/search.js env:SEARCH_REGION,SEARCH_TOKEN,NODE_ENV=production"
 */
export interface CommandRule {
  /** argv prefix: the configured command must start with these words, element by element. */
  prefix: string[];
  /** Set by the operator on every run of this command. */
  fixedEnv: Record<string, string>;
  /** Names a tenant's configuration may set (values are kept out of the log, see SecretStore). */
  tenantEnv: string[];
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Variables that change how an interpreter, the dynamic linker or a shell loads code, or where
 * the command itself is looked up: never settable by a tenant, whatever an entry lists. An
 * operator may still fix their values (`NAME=VALUE`), since the operator chose the program.
 */
const NEVER_FROM_TENANT: readonly RegExp[] = [
  /^PATH$/,
  /^HOME$/,
  /^(LD|DYLD)_/,
  /^NODE_/,
  /^NPM_/i,
  /^(SWC|TS_NODE|TSX|BUN)_/,
  /^PYTHON/,
  /^PERL/,
  /^RUBY/,
  /^(JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|CLASSPATH)$/,
  /^(BASH_ENV|ENV|SHELLOPTS|BASHOPTS|IFS|PS4|PROMPT_COMMAND)$/,
  /^BASH_FUNC_/,
  /^(GCONV_PATH|MALLOC_|GLIBC_TUNABLES|LOCPATH|NLSPATH|HOSTALIASES|RES_OPTIONS)/,
  /^(GIT_|SSH_|SSL_CERT_|HTTP_PROXY$|HTTPS_PROXY$|ALL_PROXY$|NO_PROXY$)/i,
  /^(HUB_|DATABASE_URL$|REDIS_URL$|OTEL_)/,
];

/** True when `name` may never come from a tenant (see {@link NEVER_FROM_TENANT}). */
export function neverFromTenant(name: string): boolean {
  return NEVER_FROM_TENANT.some((re) => re.test(name));
}

/** The rules of one allowlist setting, or the problems that make it unusable. */
export function parseCommandRules(raw: string | undefined): { rules: CommandRule[]; problems: string[] } {
  const rules: CommandRule[] = [];
  const problems: string[] = [];
  for (const entry of (raw ?? '').split(';')) {
    const words = entry.trim().split(/\s+/).filter(Boolean);
    if (words.length === 0) continue;
    const envWord = words.at(-1)?.startsWith('env:') ? words.pop() : undefined;
    const rule: CommandRule = { prefix: words, fixedEnv: {}, tenantEnv: [] };
    if (words.length === 0) problems.push(`"${entry.trim()}" names no command before env:`);
    for (const item of (envWord?.slice('env:'.length) ?? '').split(',').filter(Boolean)) {
      const eq = item.indexOf('=');
      const name = eq < 0 ? item : item.slice(0, eq);
      if (!NAME.test(name)) problems.push(`"${name}" is not a variable name`);
      else if (eq >= 0) rule.fixedEnv[name] = item.slice(eq + 1);
      else if (neverFromTenant(name))
        problems.push(`${name} may not be set by a tenant (it changes how programs load code); fix its value with ${name}=VALUE instead`);
      else rule.tenantEnv.push(name);
    }
    rules.push(rule);
  }
  return { rules, problems };
}

/** A zod check for an allowlist setting's raw string: every problem of {@link parseCommandRules}. */
export function checkCommandRules(raw: string | undefined, ctx: z.RefinementCtx): void {
  for (const message of parseCommandRules(raw).problems) ctx.addIssue({ code: 'custom', message, params: { exact: true } });
}

/** The rule for `command`: the longest prefix that matches it, or undefined when none allows it. */
export function commandRule(command: readonly string[], rules: readonly CommandRule[]): CommandRule | undefined {
  let best: CommandRule | undefined;
  for (const r of rules) {
    const matches = r.prefix.length > 0 && r.prefix.length <= command.length && r.prefix.every((part, i) => command[i] === part);
    if (matches && (!best || r.prefix.length > best.prefix.length)) best = r;
  }
  return best;
}

/** Names in `env` that `rule` does not let a tenant set (empty when all are allowed). */
export function tenantEnvRefused(rule: CommandRule, env: Readonly<Record<string, string>>): string[] {
  return Object.keys(env).filter((name) => !rule.tenantEnv.includes(name));
}

/**
 * The whole environment of a process run under `rule`: the base (PATH, HOME, locale: see
 * `childProcessBaseEnv`), the operator's fixed values, then the tenant's allowed ones. A name the
 * rule does not allow is dropped here too, as a second line behind the check at configuration.
 */
export function ruleEnv(base: Readonly<Record<string, string>>, rule: CommandRule, tenant: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = { ...base, ...rule.fixedEnv };
  for (const name of rule.tenantEnv) if (tenant[name] !== undefined) out[name] = tenant[name];
  return out;
}
