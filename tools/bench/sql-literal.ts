/**
 * What inlining one projection batch as an SQL literal costs: `pg`'s `escapeLiteral` (a loop
 * appending a character at a time) against `sqlLiteral` (two native replaces), on a batch the
 * size the sessions projection writes at 300 streaming turns in flight (300 rows).
 *
 *   SWC_NODE_PROJECT=tsconfig.base.json node -r @swc-node/register tools/bench/sql-literal.ts
 */
import { escapeLiteral } from 'pg';
import { sqlLiteral } from '@hub/projections';

const rows = Array.from({ length: 300 }, (_, i) => ({
  tenant_id: '7c0e4a52-3a43-4f0e-9d5e-2f4a1c1b9e01',
  session_id: `s-${i}`,
  status: 'running',
  title: "long answer 100: the hub's words",
  last_text: 'word \\ '.repeat(100),
  updated_at: new Date().toISOString(),
}));
const batch = JSON.stringify(rows);
const ROUNDS = 200;
for (let pass = 0; pass < 2; pass++) {
  for (const [name, escape] of [
    ['pg escapeLiteral', escapeLiteral],
    ['sqlLiteral', sqlLiteral],
  ] as const) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < ROUNDS; i++) escape(batch);
    const us = Number(process.hrtime.bigint() - start) / 1000 / ROUNDS;
    console.log(`${name.padEnd(17)} ${us.toFixed(1).padStart(8)} µs per batch of ${Math.round(batch.length / 1024)} KB`);
  }
}
