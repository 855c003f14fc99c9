import { AdmissionGate, isOverloaded, nextLimit } from './admission-gate';

describe('the admission gate', () => {
  const limits = { max: 1000, min: 8, loopDelayMs: 100, appendBacklog: 2000 };
  const calm = { loopDelayMs: 12, cpuCores: 0.4, appendBacklog: 3, running: 400, overloadedTicks: 0 };
  const lagging = (loopDelayMs: number, ticks = 2) => ({ ...calm, loopDelayMs, cpuCores: 0.95, overloadedTicks: ticks });

  it('opens by a tenth of the maximum per calm tick, never past the maximum', () => {
    expect(nextLimit(500, calm, limits)).toBe(600);
    expect(nextLimit(950, calm, limits)).toBe(1000);
    expect(nextLimit(1000, calm, limits)).toBe(1000);
  });

  it('closes to 80 % of what runs when the event loop lags two ticks in a row', () => {
    expect(nextLimit(1000, lagging(250), limits)).toBe(320);
  });

  it('holds, neither opening nor closing, on the first lagging tick (a burst of arrivals)', () => {
    expect(nextLimit(1000, lagging(250, 1), limits)).toBe(1000);
    expect(nextLimit(500, lagging(250, 1), limits)).toBe(500);
    expect(nextLimit(1000, lagging(250, 1), { ...limits, sustainTicks: 1 })).toBe(320);
  });

  it('closes when appends back up behind Postgres', () => {
    expect(nextLimit(1000, { ...calm, appendBacklog: 5000, overloadedTicks: 2 }, limits)).toBe(320);
  });

  it('never closes below its floor, nor opens while overloaded', () => {
    expect(nextLimit(1000, { ...lagging(500, 3), running: 2 }, limits)).toBe(8);
    expect(nextLimit(100, { ...lagging(500, 3), running: 400 }, limits)).toBe(100);
  });

  it('calls a tick overloaded when the loop lags while the process is busy, or appends back up', () => {
    expect(isOverloaded({ loopDelayMs: 101, cpuCores: 0.8, appendBacklog: 0 }, limits)).toBe(true);
    expect(isOverloaded({ loopDelayMs: 5, cpuCores: 0.1, appendBacklog: 2001 }, limits)).toBe(true);
    expect(isOverloaded({ loopDelayMs: 100, cpuCores: 1, appendBacklog: 2000 }, limits)).toBe(false);
  });

  it('does not call a lagging loop overloaded while the process itself is mostly idle (others hold the cores)', () => {
    expect(isOverloaded({ loopDelayMs: 400, cpuCores: 0.3, appendBacklog: 0 }, limits)).toBe(false);
    expect(isOverloaded({ loopDelayMs: 400, cpuCores: 0.3, appendBacklog: 0 }, { ...limits, cpuCores: 0.2 })).toBe(true);
  });
});

describe('AdmissionGate', () => {
  // The CPU bar low: a busy loop on a loaded machine (a CI run beside other specs) may get only
  // part of a core; what these cases check is the gate's ticks, the bar is checked above.
  const GATE = { max: 100, min: 4, loopDelayMs: 100, appendBacklog: 1000, cpuCores: 0.1 };
  const busy = (ms: number) => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      // the event loop is held: what a crowd of turns does to a worker
    }
  };
  const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const until = async (ok: () => boolean) => {
    const deadline = Date.now() + 10_000;
    while (!ok()) {
      if (Date.now() > deadline) throw new Error('the gate did not open again within 10 s');
      await tick(20);
    }
  };
  /** An intake that remembers every concurrency it was given. */
  const recording = (start: number) => {
    const seen: number[] = [];
    let value = start;
    return {
      seen,
      get concurrency() {
        return value;
      },
      set concurrency(v: number) {
        value = v;
        seen.push(v);
      },
    };
  };

  /** Runs `body` with a started gate over one recording intake (at 100), stopping the gate after. */
  async function withGate(
    signals: () => { appendBacklog: number; running: number },
    tickMs: number,
    body: (intake: ReturnType<typeof recording>) => Promise<void>,
  ): Promise<void> {
    const intake = recording(100);
    const gate = new AdmissionGate([intake], signals, GATE, tickMs);
    gate.start();
    try {
      await body(intake);
    } finally {
      gate.stop();
    }
  }

  it('closes the intake while the event loop lags, and opens it again once it is calm', () =>
    withGate(
      () => ({ appendBacklog: 0, running: 50 }),
      200,
      async (intake) => {
        await tick(210);
        // The loop held through several ticks (yielding a moment between holds, so the delay
        // monitor samples each): the second lagging tick in a row closes it to 80 % of the running.
        for (let i = 0; i < 8; i++) {
          busy(150);
          await tick(1);
        }
        expect(intake.seen[0]).toBe(40);
        // Calm again: a tenth of the maximum more per tick, up to the maximum (8 ticks; a loaded
        // machine may make a tick late, or lag again for one).
        await until(() => intake.concurrency === 100);
        expect(intake.seen.filter((v) => v > 40)).toEqual(expect.arrayContaining([50, 60, 100]));
      },
    ));

  it('does not close for one lagging tick: a burst of arrivals starting their turns', () =>
    withGate(
      () => ({ appendBacklog: 0, running: 50 }),
      50,
      async (intake) => {
        await tick(60);
        busy(300);
        await tick(200);
        expect(intake.seen).toEqual([]);
        expect(intake.concurrency).toBe(100);
      },
    ));

  it('closes while appends wait for Postgres, whatever the event loop', () => {
    let backlog = 5000;
    return withGate(
      () => ({ appendBacklog: backlog, running: 30 }),
      50,
      async (intake) => {
        await tick(120);
        expect(intake.seen[0]).toBe(24);
        expect(intake.concurrency).toBe(24);
        backlog = 0;
        await until(() => intake.concurrency === 100);
      },
    );
  });
});
