import { Body, Controller, Get, HttpCode, Post, Put, Query, Req } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { createBuiltinRegistry } from '@hub/agent';
import { actorOf, type Principal } from '@hub/auth';
import { DomainError, RiskTier } from '@hub/domain';
import { Outcome, TenantPolicies, explain } from '@hub/policy';
import { CurrentPrincipal } from '../auth/api-key.guard';
import { apiRef } from '../http/api-schemas';
import './policy.roles';

/**
 * What explain is asked about: a tool call as the worker would see it. For one of the hub's own
 * tools, executor, risk and default come from the tool itself (what the worker uses); for another
 * (an MCP server's), the caller says them.
 */
const ExplainBody = z.strictObject({
  tool: z.string().min(1).max(200),
  input: z.unknown().default({}),
  executor: z.string().min(1).max(200).optional(),
  riskTier: RiskTier.optional(),
  /** The tool's own default, for a policy whose default is `builtin`. */
  builtin: Outcome.optional(),
});

const BUILTIN_TOOLS = createBuiltinRegistry();

/** Who may read the policy: every key but a client's (approvers need to see what asks them). */
function requireReader(p: Principal): void {
  if (p.role === 'client') throw new DomainError('FORBIDDEN', "this needs an admin, operator, approver or viewer key; this key's role is client");
}

/**
 * The tenant's approval policy (issue 23, docs/approval-policy.md): read it, replace it (admin,
 * validated first: a refused policy changes nothing and names the bad field), and explain a tool
 * call against it, with the rule the worker would apply.
 */
@ApiTags('admin')
@Controller('v1/admin/policy')
export class PolicyController {
  constructor(private readonly policies: TenantPolicies) {}

  @ApiOperation({ summary: "The tenant's approval policy in force and its version (0: the built-in one, each tool's own default)" })
  @ApiOkResponse({ schema: apiRef('PolicyView') })
  @Get()
  async get(@CurrentPrincipal() p: Principal) {
    requireReader(p);
    return this.policies.current(p.tenantId);
  }

  @ApiOperation({
    summary:
      "Replace the tenant's approval policy (admin): recorded as the next version; an invalid one is refused (400, `path` names the field) and nothing changes",
  })
  @ApiBody({ schema: apiRef('ApprovalPolicy') })
  @ApiQuery({ name: 'expectedVersion', required: false, description: 'Refuse (409) unless the policy is still at this version' })
  @ApiOkResponse({ schema: apiRef('PolicyView') })
  @ApiResponse({ status: 400, description: 'The policy is invalid: problem+json with `path` (the first bad field) and `issues` (all of them)' })
  @Put()
  async set(
    @CurrentPrincipal() p: Principal,
    @Body() body: unknown,
    @Query('expectedVersion') expected: string | undefined,
    @Req() req: { correlationId?: string },
  ) {
    if (p.role !== 'admin') throw new DomainError('FORBIDDEN', `this needs an admin key; this key's role is ${p.role}`);
    const expectedVersion = expected === undefined ? undefined : Number(expected);
    if (expectedVersion !== undefined && !Number.isInteger(expectedVersion)) throw new DomainError('INVALID_COMMAND', 'expectedVersion must be an integer');
    const metadata = { correlationId: req.correlationId ?? crypto.randomUUID(), actor: actorOf(p), protocol: 'internal' as const };
    return this.policies.set(p.tenantId, body, metadata, expectedVersion);
  }

  @ApiOperation({ summary: 'Which rule of the policy in force decides a tool call, and why: {tool, input, executor?, riskTier?, builtin?}' })
  @ApiOkResponse({ schema: apiRef('PolicyExplanation') })
  @Post('explain')
  @HttpCode(200)
  async explain(@CurrentPrincipal() p: Principal, @Body() body: unknown) {
    requireReader(p);
    const parsed = ExplainBody.safeParse(body ?? {});
    if (!parsed.success) {
      const i = parsed.error.issues[0];
      throw new DomainError(
        'INVALID_COMMAND',
        `body must be {"tool", "input", "executor"?, "riskTier"?, "builtin"?}: ${i?.path.join('.') ?? ''} ${i?.message ?? ''}`,
      );
    }
    const { tool, input, executor, riskTier, builtin } = parsed.data;
    const own = BUILTIN_TOOLS.get(tool);
    const asked = {
      tool,
      input,
      executor: executor ?? own?.executor ?? 'builtin',
      riskTier: riskTier ?? own?.riskTier ?? 'medium',
      builtin: builtin ?? own?.policy ?? 'allow',
    };
    const { version, policy } = await this.policies.current(p.tenantId);
    const { verdict, trace } = explain(policy, asked);
    return { version, ...verdict, trace };
  }
}
