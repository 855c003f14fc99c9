import { buildRubric, registerRubric, rubricKinds, type RubricInput } from './rubrics';

const turn = (over: Partial<RubricInput> = {}): RubricInput => ({
  message: 'm',
  response: 'The answer is 42.',
  toolCalls: [],
  episodeToolCalls: [],
  status: 'completed',
  ...over,
});

describe('built-in rubrics', () => {
  it('expected_answer scores 1 only for a completed turn whose response holds the answer', () => {
    const r = buildRubric({ kind: 'expected_answer', expected: '42' });
    expect(r(turn())).toBe(1);
    expect(r(turn({ response: 'no idea' }))).toBe(0);
    expect(r(turn({ status: 'failed' }))).toBe(0);
    expect(buildRubric({ kind: 'expected_answer', expected: '42', mode: 'exact' })(turn())).toBe(0);
    expect(buildRubric({ kind: 'expected_answer', expected: '^The answer is \\d+\\.$', mode: 'regex' })(turn())).toBe(1);
  });

  it('tool_usage scores the share of required tools used, 0 once a forbidden one was called', () => {
    const r = buildRubric({ kind: 'tool_usage', required: ['read_file', 'calculate'], forbidden: ['delete_file'] });
    expect(r(turn({ episodeToolCalls: ['read_file'] }))).toBe(0.5);
    expect(r(turn({ episodeToolCalls: ['read_file', 'calculate'] }))).toBe(1);
    expect(r(turn({ episodeToolCalls: ['read_file', 'calculate', 'delete_file'] }))).toBe(0);
  });

  it('refuses unknown kinds, bad parameters and a second registration of a name', () => {
    expect(() => buildRubric({ kind: 'vibes' })).toThrow(/unknown rubric vibes/);
    expect(() => buildRubric({ kind: 'expected_answer' })).toThrow(/expected/);
    expect(() => buildRubric({ kind: 'tool_usage' })).toThrow(/required or forbidden/);
    expect(() => registerRubric('tool_usage', () => () => 1)).toThrow(/already/);
  });

  it('takes a new rubric kind through registerRubric', () => {
    registerRubric('short_answer', (p) => (i) => (i.response.length <= Number(p['max']) ? 1 : 0));
    expect(rubricKinds()).toContain('short_answer');
    expect(buildRubric({ kind: 'short_answer', max: 5 })(turn())).toBe(0);
    expect(buildRubric({ kind: 'short_answer', max: 50 })(turn())).toBe(1);
  });
});
