// The graph of the streaming workload (tools/bench/peers/streaming.ts): one node, `model`, that
// calls an offline chat model streaming its answer word by word at the hub's offline pace, no
// network. `long answer <N>` (the hub's offline script) is answered with `word1 word2 … wordN`,
// one chunk a word (each with its trailing space), the first at once and word i due
// i × OFFLINE_DELAY_MS (default 15, the hub's HUB_OFFLINE_DELAY_MS default) after it, by the
// model's clock as the hub's offline provider paces them. The node calls the model with `invoke`: under the agent
// server's `streamEvents`, LangChain runs it through `_streamResponseChunks` and each chunk
// reaches the client as a `messages/partial` event of stream mode `messages`.
import { setTimeout as sleep } from 'node:timers/promises';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk } from '@langchain/core/messages';
import { ChatGenerationChunk } from '@langchain/core/outputs';

const DELAY_MS = Number(process.env.OFFLINE_DELAY_MS ?? 15);

/** `long answer <N>` → `word1 … wordN` (as the hub's offline script); anything else echoed. */
export function offlineWords(prompt) {
  const long = /\blong answer\s+(\d+)/i.exec(prompt);
  const text = long
    ? Array.from({ length: Math.max(1, Math.min(5000, Number(long[1]))) }, (_, i) => `word${i + 1}`).join(' ')
    : `You said: "${prompt.slice(0, 200)}".`;
  return text.match(/\s*\S+\s*/g) ?? [text];
}

class OfflineStreamingChatModel extends BaseChatModel {
  _llmType() {
    return 'offline-streaming';
  }

  async *_streamResponseChunks(messages, options, runManager) {
    const last = messages.at(-1);
    const words = offlineWords(typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? ''));
    const start = performance.now();
    for (const [i, word] of words.entries()) {
      const wait = start + i * DELAY_MS - performance.now();
      if (wait > 0) await sleep(wait, undefined, { signal: options.signal });
      else options.signal?.throwIfAborted();
      const chunk = new ChatGenerationChunk({ text: word, message: new AIMessageChunk({ content: word }) });
      yield chunk;
      await runManager?.handleLLMNewToken(word, undefined, undefined, undefined, undefined, { chunk });
    }
  }

  async _generate(messages, options, runManager) {
    let text = '';
    for await (const chunk of this._streamResponseChunks(messages, options, runManager)) text += chunk.text;
    return { generations: [{ text, message: new AIMessage(text) }] };
  }
}

const chat = new OfflineStreamingChatModel({});

async function model(state, config) {
  return { messages: [await chat.invoke(state.messages, config)] };
}

export const graph = new StateGraph(MessagesAnnotation).addNode('model', model).addEdge(START, 'model').addEdge('model', END).compile();
