/**
 * The order `hub host` keeps between requests in protocol mode, where every request is its own
 * `POST /v1/zene` and the hub would otherwise see them in whatever order the posts land:
 *
 * - A session's requests reach the hub in the order their lines arrived: each waits until the
 *   one before it in its session was answered at all (its first reply line, or its end). So a
 *   `cancel` written right after its `run` finds the run, however long the run's admission takes.
 * - While a `cancel` for a request is in flight, that request's `CANCELED` final waits for the
 *   cancel's own answer, the order upstream writes them in (`cancel-responses.sequence.json`).
 */
export class RequestOrder {
  /** Per session: resolves once the latest request entered so far was admitted. */
  private readonly tails = new Map<string, Promise<void>>();
  /** Per target request id: resolves once the cancel aimed at it has written its answer. */
  private readonly cancels = new Map<string, Promise<void>>();

  /**
   * Takes the next place in `session`'s queue; resolves when the request may be sent, with the
   * function that admits it (idempotent: call it on the first reply line and again at the end).
   */
  async enter(session: string): Promise<() => void> {
    const before = this.tails.get(session) ?? Promise.resolve();
    let admit!: () => void;
    const admitted = new Promise<void>((resolve) => (admit = resolve));
    const tail = before.then(() => admitted);
    this.tails.set(session, tail);
    // Forget an idle session: nothing queued behind this request any more.
    void tail.then(() => this.tails.get(session) === tail && this.tails.delete(session));
    await before;
    return admit;
  }

  /** A cancel for `target` is being sent; call the result once its answer is written. */
  cancelling(target: string): () => void {
    let answered!: () => void;
    const done = new Promise<void>((resolve) => (answered = resolve));
    const previous = this.cancels.get(target) ?? Promise.resolve();
    const all = Promise.all([previous, done]).then(() => undefined);
    this.cancels.set(target, all);
    return () => {
      answered();
      void all.then(() => this.cancels.get(target) === all && this.cancels.delete(target));
    };
  }

  /** Resolves once no cancel for `requestId` is waiting for its answer. */
  cancelAnswered(requestId: string): Promise<void> {
    return this.cancels.get(requestId) ?? Promise.resolve();
  }
}
