import { acceptsUpdate, extensionOptIn } from './extensions';

describe('session-update extension opt-in', () => {
  it('a client that declares nothing gets standard variants only', () => {
    const optIn = extensionOptIn({ fs: { readTextFile: true } });
    expect(acceptsUpdate(optIn, 'agent_message_chunk')).toBe(true);
    expect(acceptsUpdate(optIn, 'current_mode_update')).toBe(true);
    expect(acceptsUpdate(optIn, 'progress')).toBe(false);
    expect(acceptsUpdate(extensionOptIn(undefined), 'hitl_request')).toBe(false);
  });

  it('`true` accepts every extension', () => {
    const optIn = extensionOptIn({ _meta: { harn: { sessionUpdateExtensions: true } } });
    expect(['progress', 'log', 'hitl_request', 'hitl_resolved'].every((k) => acceptsUpdate(optIn, k))).toBe(true);
  });

  it('a list accepts just those, and ignores non-strings', () => {
    const optIn = extensionOptIn({ _meta: { harn: { sessionUpdateExtensions: ['log', 7] } } });
    expect(acceptsUpdate(optIn, 'log')).toBe(true);
    expect(acceptsUpdate(optIn, 'progress')).toBe(false);
    expect(acceptsUpdate(optIn, 'tool_call')).toBe(true);
  });

  it('a malformed declaration means standard only', () => {
    expect(acceptsUpdate(extensionOptIn({ _meta: { harn: { sessionUpdateExtensions: 'yes' } } }), 'log')).toBe(false);
  });
});
