// The graph the LangGraph peer serves: one node, `model`, an offline stand-in for a model call
// that answers at once with a fixed reply built from the input (the hub's offline provider's
// reply to a plain prompt), no network.
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { AIMessage } from '@langchain/core/messages';

export function offlineReply(prompt) {
  return (
    `You said: "${prompt.slice(0, 200)}". I am the offline provider, a deterministic stand-in for a real model. ` +
    'Ask me to read, write or delete a file, list files, or calculate something.'
  );
}

async function model(state) {
  const last = state.messages.at(-1);
  const prompt = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
  return { messages: [new AIMessage(offlineReply(prompt))] };
}

export const graph = new StateGraph(MessagesAnnotation).addNode('model', model).addEdge(START, 'model').addEdge('model', END).compile();
