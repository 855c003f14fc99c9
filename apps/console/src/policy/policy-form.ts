import { ApiError } from '../api/client';

/**
 * Pure: what the policy page reads from what a person typed and from the hub's refusals (issue 23).
 * A policy is edited as JSON text; explain's arguments are JSON too.
 */

/** Where a JSON text stops parsing, as a person finds it: "line 3, column 14: …". */
export type Parsed = { ok: true; value: unknown } | { ok: false; message: string };

/** Line and column (1-based) of character `offset` of `text`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1].length + 1 };
}

/** `text` as JSON, or why not (with the line and column when the parser names a position). */
export function parseJson(text: string): Parsed {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const at = /at position (\d+)/.exec(message);
    if (at && !/line \d+ column \d+/.test(message)) {
      const { line, column } = lineColumn(text, Number(at[1]));
      return { ok: false, message: `line ${line}, column ${column}: ${message}` };
    }
    return { ok: false, message };
  }
}

/** One refused field: its path from the policy's root (`$.rules[1].match.tool`) and why. */
export interface FieldError {
  at: string;
  message: string;
}

/**
 * The refused fields of a 400 problem+json: each of `issues` (`{at, message}`), else the one
 * `path` with the detail; empty for any other error (shown as its message).
 */
export function fieldErrors(e: unknown): FieldError[] {
  if (!(e instanceof ApiError) || e.status !== 400 || !e.problem) return [];
  const { issues, path } = e.problem as { issues?: unknown; path?: unknown };
  if (Array.isArray(issues)) {
    const found = issues.flatMap((i) => {
      const { at, message } = (i ?? {}) as { at?: unknown; message?: unknown };
      return typeof at === 'string' && typeof message === 'string' ? [{ at, message }] : [];
    });
    if (found.length > 0) return found;
  }
  return typeof path === 'string' ? [{ at: path, message: e.message }] : [];
}

export const RISK_TIERS = ['low', 'medium', 'high'] as const;

/** The explain form as typed: tool, JSON arguments, and optionally executor and risk tier. */
export interface ExplainDraft {
  tool: string;
  args: string;
  executor: string;
  riskTier: '' | (typeof RISK_TIERS)[number];
}

/** The body of POST /v1/admin/policy/explain for a draft, or why the arguments are not JSON. */
export function explainBody(d: ExplainDraft): { ok: true; body: Record<string, unknown> } | { ok: false; message: string } {
  const args = d.args.trim() === '' ? ({ ok: true, value: {} } as const) : parseJson(d.args);
  if (!args.ok) return { ok: false, message: `Arguments: ${args.message}` };
  const body: Record<string, unknown> = { tool: d.tool.trim(), input: args.value };
  if (d.executor.trim()) body.executor = d.executor.trim();
  if (d.riskTier) body.riskTier = d.riskTier;
  return { ok: true, body };
}

/** The matched rule as the hub names it everywhere: `no-outside (rule 2)`, `rules[0] (rule 1)`, `the default`. */
export function ruleName(rule: { id: string; index: number | null }): string {
  return rule.index === null ? 'the default' : `${rule.id} (rule ${rule.index + 1})`;
}
