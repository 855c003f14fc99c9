import { TransportTestClient, type HubStack } from '@hub/testing';

/**
 * Runs one turn of `session` over the transport (a client other than the browser) and waits
 * until it is done (`idle`) or waits for an approval (`approval`).
 */
export async function turn(stack: HubStack, apiKey: string, session: string, prompt: string, until: 'idle' | 'approval'): Promise<void> {
  const c = await TransportTestClient.connect(stack.url, apiKey, { session });
  await c.waitFor('snapshot', (x) => x.state !== null);
  const before = c.state?.messages.length ?? 0;
  c.send([{ type: 'submit', prompt }]);
  await c.waitFor(until, (x) =>
    until === 'idle'
      ? x.state?.status === 'idle' && x.state.messages.length >= before + 2 && x.lastAssistant()?.status === 'complete'
      : x.lastAssistant()?.toolCalls?.[0]?.approval?.status === 'pending',
  );
  await c.close();
}

/** Polls `check` until it returns true or `ms` pass; the last failure's message is the error. */
export async function eventually(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
