import { RequestOrder } from './request-order';

const tick = () => new Promise((r) => setImmediate(r));

describe('RequestOrder', () => {
  it("a session's requests go one after another, each once the one before was admitted; other sessions do not wait", async () => {
    const order = new RequestOrder();
    const sent: string[] = [];
    const admitRun = await order.enter('s');
    sent.push('run');
    const cancel = order.enter('s').then((admit) => (sent.push('cancel'), admit));
    const other = order.enter('t').then((admit) => (sent.push('other'), admit));
    await tick();
    expect(sent).toEqual(['run', 'other']);
    admitRun();
    admitRun(); // idempotent: the first reply line and the end both admit
    (await cancel)();
    expect(sent).toEqual(['run', 'other', 'cancel']);
    (await other)();
  });

  it('a CANCELED final waits until the cancel aimed at its request has answered; other requests do not', async () => {
    const order = new RequestOrder();
    const answered = order.cancelling('run-1');
    let released = false;
    const held = order.cancelAnswered('run-1').then(() => (released = true));
    await order.cancelAnswered('run-2');
    await tick();
    expect(released).toBe(false);
    answered();
    await held;
    expect(released).toBe(true);
    await order.cancelAnswered('run-1');
  });
});
