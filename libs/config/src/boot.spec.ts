import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

// runUntilSignal in a real process: a signal stops it; a stop that hangs or fails still ends it.

const ROOT = resolve(__dirname, '../../..');

/** Runs a process (kept alive by a timer, as a server keeps a hub process) whose stop does `stopBody`, signals it once it is up, and says how it ended. */
function run(stopBody: string, signals: NodeJS.Signals[] = ['SIGTERM']): Promise<{ code: number | null; stderr: string; ms: number }> {
  const script = `require(${JSON.stringify(resolve(__dirname, 'boot.ts'))}).runUntilSignal('probe', async () => { setInterval(() => undefined, 1000); setTimeout(() => process.stdout.write('up\\n'), 0); return ${stopBody}; }, { stopWithinMs: 500 });`;
  const child = spawn(process.execPath, ['-r', resolve(ROOT, 'node_modules/@swc-node/register/index.js'), '-e', script], {
    env: { ...process.env, SWC_NODE_PROJECT: resolve(ROOT, 'tsconfig.base.json') },
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let signalledAt = 0;
  child.stdout.once('data', () => {
    signalledAt = Date.now();
    // One signal after another, each once the one before has been taken.
    signals.forEach((s, i) => setTimeout(() => child.kill(s), i * 200));
  });
  return new Promise((done) => child.once('exit', (code) => done({ code, stderr, ms: Date.now() - signalledAt })));
}

it('exits 0 once its stop resolves', async () => {
  const r = await run('async () => undefined');
  expect(r).toMatchObject({ code: 0, stderr: '' });
});

it('exits 1 with a line when its stop does not end within the bound', async () => {
  const r = await run('() => new Promise(() => undefined)');
  expect(r.code).toBe(1);
  expect(r.stderr).toBe('probe: did not stop within 500 ms of SIGTERM: exiting\n');
  expect(r.ms).toBeGreaterThanOrEqual(450);
});

it('exits 1 with a line when its stop fails', async () => {
  const r = await run("async () => { throw new Error('redis is gone'); }");
  expect(r).toMatchObject({ code: 1, stderr: 'probe: stop failed: redis is gone\n' });
});

it('a second signal while stopping exits at once', async () => {
  const r = await run('() => new Promise(() => undefined)', ['SIGTERM', 'SIGINT']);
  expect(r).toMatchObject({ code: 1, stderr: 'probe: SIGINT while stopping: exiting now\n' });
});
