import { parseHostArgs } from './args';

describe('hub host arguments', () => {
  it('clawbridge / upstream one-shot flags', () => {
    expect(parseHostArgs(['--protocol', 'v1', '--bridge-compat', '--single-request'])).toEqual({
      protocol: 'v1',
      bridgeCompat: true,
      singleRequest: true,
      maxInputBytes: 1_048_576,
      busyPolicy: undefined,
      deadlineMarginMs: 3000,
    });
  });

  it('long-lived protocol mode: --single-request false, in either spelling', () => {
    expect(parseHostArgs(['--single-request', 'false']).singleRequest).toBe(false);
    expect(parseHostArgs(['--single-request=false', '--bridge-compat=false'])).toEqual(expect.objectContaining({ singleRequest: false, bridgeCompat: false }));
    expect(parseHostArgs([]).singleRequest).toBe(false);
  });

  it('a boolean flag does not swallow the next flag', () => {
    expect(parseHostArgs(['--single-request', '--bridge-compat'])).toEqual(expect.objectContaining({ singleRequest: true, bridgeCompat: true }));
  });

  it('valued flags', () => {
    expect(parseHostArgs(['--max-input-bytes=2048', '--busy-policy', 'enqueue', '--deadline-margin-ms', '10'])).toEqual(
      expect.objectContaining({ maxInputBytes: 2048, busyPolicy: 'enqueue', deadlineMarginMs: 10 }),
    );
  });

  it.each([
    [['--nope'], /unknown argument "--nope"/],
    [['v1'], /unexpected argument "v1"/],
    [['--max-input-bytes', '0'], /positive integer/],
    [['--max-input-bytes'], /needs a value/],
    [['--single-request=maybe'], /true or false/],
    [['--busy-policy', 'panic'], /./],
  ])('%j is refused', (argv, message) => expect(() => parseHostArgs(argv)).toThrow(message));
});
