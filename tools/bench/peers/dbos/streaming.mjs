// The streaming workload of tools/bench/peers/streaming.ts on DBOS: a workflow whose model step
// writes each word of its answer to the workflow's stream `answer` with `DBOS.writeStream` as it
// produces it (the offline model: `long answer <N>` → `word1 … wordN`, one word each with its
// trailing space, the first at once and word i due i × OFFLINE_DELAY_MS (default 15) after it,
// by the model's clock as the hub's offline provider paces them), then records the answer as a second step and
// closes the stream. `serveStream` is the HTTP side: it starts the workflow with the client's id
// and relays `DBOS.readStream` to the client as server-sent events, one event a word, then one
// `end` event with the workflow's result.
import { setTimeout as sleep } from 'node:timers/promises';
import { DBOS } from '@dbos-inc/dbos-sdk';

const DELAY_MS = Number(process.env.OFFLINE_DELAY_MS ?? 15);
const STREAM = 'answer';

/** `long answer <N>` → `word1 … wordN` (as the hub's offline script); anything else echoed. */
function offlineWords(prompt) {
  const long = /\blong answer\s+(\d+)/i.exec(prompt);
  const text = long
    ? Array.from({ length: Math.max(1, Math.min(5000, Number(long[1]))) }, (_, i) => `word${i + 1}`).join(' ')
    : `You said: "${prompt.slice(0, 200)}".`;
  return text.match(/\s*\S+\s*/g) ?? [text];
}

// Step 1: the model call, streaming: each word goes to the workflow's stream as it is produced
// (a stream write from a step is a row in DBOS's system database). Its output, the whole
// answer, is checkpointed by DBOS.
const streamModel = DBOS.registerStep(
  async (prompt) => {
    let text = '';
    const start = performance.now();
    for (const [i, word] of offlineWords(prompt).entries()) {
      const wait = start + i * DELAY_MS - performance.now();
      if (wait > 0) await sleep(wait);
      await DBOS.writeStream(STREAM, word);
      text += word;
    }
    return { role: 'assistant', text, finishReason: 'stop' };
  },
  { name: 'streamModel' },
);
// Step 2: record the answer (the step's checkpointed output), as the trivial workload does.
const recordAnswer = DBOS.registerStep(async (runId, prompt, answer) => ({ runId, prompt, answer: answer.text, status: 'complete', recordedAt: Date.now() }), {
  name: 'recordStreamedAnswer',
});

const streamingTurn = DBOS.registerWorkflow(
  async (prompt) => {
    const answer = await streamModel(prompt);
    const record = await recordAnswer(DBOS.workflowID, prompt, answer);
    await DBOS.closeStream(STREAM);
    return { ...record, answer: undefined, words: answer.text.split(' ').length };
  },
  { name: 'streamingTurn' },
);

/** POST /streams {id, prompt}: the workflow's stream as server-sent events (`data:` one word each, then `event: end`). */
export async function serveStream(req, res, body) {
  const { id, prompt } = JSON.parse(body);
  const handle = await DBOS.startWorkflow(streamingTurn, { workflowID: id })(prompt);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  try {
    for await (const word of DBOS.readStream(id, STREAM)) res.write(`data: ${JSON.stringify(word)}\n\n`);
    res.end(`event: end\ndata: ${JSON.stringify(await handle.getResult())}\n\n`);
  } catch (e) {
    res.end(`event: error\ndata: ${JSON.stringify(String(e?.stack ?? e))}\n\n`);
  }
}
