// DBOS Transact (`@dbos-inc/dbos-sdk`) behind a small node:http server: each POST /runs starts a
// workflow with the id the client gave, of two durable steps (the offline model call, then
// recording the answer), and answers with the workflow's result once it finished. The system
// database is DBOS_SYSTEM_DATABASE_URL (DBOS creates and migrates it at launch). POST /streams is
// the streaming workload's (streaming.mjs: the answer word by word over server-sent events).
// Prints one JSON line {"ready":true,"url":...} on stdout once it listens.
import { createServer } from 'node:http';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { serveStream } from './streaming.mjs';

function offlineReply(prompt) {
  return (
    `You said: "${prompt.slice(0, 200)}". I am the offline provider, a deterministic stand-in for a real model. ` +
    'Ask me to read, write or delete a file, list files, or calculate something.'
  );
}

// Step 1: the model call (offline: answers at once). Its output is checkpointed by DBOS.
const callModel = DBOS.registerStep(async (prompt) => ({ role: 'assistant', text: offlineReply(prompt), finishReason: 'stop' }), { name: 'callModel' });
// Step 2: record the answer (the record is the step's checkpointed output, written by DBOS to
// its system database before the workflow goes on).
const recordAnswer = DBOS.registerStep(async (runId, prompt, answer) => ({ runId, prompt, answer: answer.text, status: 'complete', recordedAt: Date.now() }), {
  name: 'recordAnswer',
});

const agentTurn = DBOS.registerWorkflow(
  async (prompt) => {
    const answer = await callModel(prompt);
    return recordAnswer(DBOS.workflowID, prompt, answer);
  },
  { name: 'agentTurn' },
);

// DBOS_POOL_SIZE: the system database's connection pool (unset: DBOS's default, 10).
const poolSize = process.env.DBOS_POOL_SIZE ? { systemDatabasePoolSize: Number(process.env.DBOS_POOL_SIZE) } : {};
DBOS.setConfig({ name: 'peers-dbos', systemDatabaseUrl: process.env.DBOS_SYSTEM_DATABASE_URL, logLevel: process.env.DBOS_LOG_LEVEL ?? 'warn', ...poolSize });
await DBOS.launch();

const server = createServer((req, res) => {
  if (req.method !== 'POST' || (req.url !== '/runs' && req.url !== '/streams')) return void res.writeHead(404).end();
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', async () => {
    try {
      if (req.url === '/streams') return await serveStream(req, res, body);
      const { id, prompt } = JSON.parse(body);
      const handle = await DBOS.startWorkflow(agentTurn, { workflowID: id })(prompt);
      const result = await handle.getResult();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
    } catch (e) {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(e?.stack ?? e) }));
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ ready: true, url: `http://127.0.0.1:${server.address().port}` })}\n`);
});
const stop = async () => {
  server.close();
  await DBOS.shutdown().catch(() => undefined);
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
