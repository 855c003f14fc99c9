import { parseIntents } from './offline-intents';

describe('offline intent `use <tool> with <json>`', () => {
  it('calls any tool by name with a JSON object, nested braces and quotes included', () => {
    const intents = parseIntents('please use echo with {"text": "read a.txt {x}", "n": {"k": 1}} now');
    expect(intents).toEqual([{ index: 7, say: "I'll use echo.", name: 'echo', input: { text: 'read a.txt {x}', n: { k: 1 } } }]);
  });

  it('keeps prompt order with other intents, and ignores JSON that is not an object', () => {
    expect(parseIntents('calculate 1 + 1 and use env_calculator with {"expression": "2"}').map((i) => i.name)).toEqual(['calculator', 'env_calculator']);
    expect(parseIntents('use echo with {not json}')).toEqual([]);
    expect(parseIntents('use echo with {"a": 1')).toEqual([]);
    expect(parseIntents('I use tools with care')).toEqual([]);
  });
});
