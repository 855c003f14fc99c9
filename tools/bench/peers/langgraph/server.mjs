// LangGraph's JS Agent Server (`@langchain/langgraph-api`, what `langgraph dev` runs), started
// the way its own entrypoint (dist/cli/entrypoint.mjs) starts it: `startServer` from
// `@langchain/langgraph-api/server`, with its default storage (in memory, flushed to
// <cwd>/.langgraph_api/ as the dev server does), serving graph.mjs as assistant `agent` (the trivial
// workload of run.ts) and stream-graph.mjs as assistant `streamer` (the streaming workload of
// streaming.ts).
// Prints one JSON line {"ready":true,"url":...} on stdout once it listens.
//
//   node server.mjs            (env: LANGGRAPH_N_JOBS, default 10 = `langgraph dev`'s default)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The server's winston logger reads LOG_LEVEL when it is first imported (default: debug, a line
// per request and per run); the bench runs every side with warnings only.
process.env.LOG_LEVEL ??= 'warn';
const { startServer } = await import('@langchain/langgraph-api/server');

// A fresh directory per start, so no state of an earlier run is read back.
const cwd = mkdtempSync(join(tmpdir(), 'peers-langgraph-'));
const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const { host } = await startServer({
  port: Number(process.env.PORT ?? 0),
  nWorkers: Number(process.env.LANGGRAPH_N_JOBS ?? 10),
  host: '127.0.0.1',
  cwd,
  graphs: { agent: `${here('./graph.mjs')}:graph`, streamer: `${here('./stream-graph.mjs')}:graph` },
});
process.stdout.write(`${JSON.stringify({ ready: true, url: `http://${host}`, cwd })}\n`);
// The state is the benchmark's only: dropped with its directory, not flushed first.
const stop = () => {
  rmSync(cwd, { recursive: true, force: true });
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
