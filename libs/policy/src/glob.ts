// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- an ambient declaration of an untyped entry point: every project that compiles this lib needs it
/// <reference path="./picomatch-posix.d.ts" />
import picomatch from 'picomatch/posix';

// Globs are picomatch's (posix: `/` separates, whatever the platform), compiled with
// `strictBrackets`, so an unbalanced `[`, `{` or `(` is an error instead of a literal character:
// a policy author who wrote `tmp/{a,b` meant something, and we say so rather than guess.

const OPTIONS = { strictBrackets: true, dot: true } as const;
const cache = new Map<string, RegExp>();

/** The glob's regular expression; throws with picomatch's message when it does not compile. */
export function globRegExp(glob: string): RegExp {
  let re = cache.get(glob);
  if (!re) {
    re = picomatch.makeRe(glob, OPTIONS);
    if (cache.size > 5_000) cache.clear();
    cache.set(glob, re);
  }
  return re;
}

/** Why the glob does not compile, or null when it does. */
export function globError(glob: string): string | null {
  try {
    globRegExp(glob);
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/** Whether `value` matches any of the globs. */
export function matchesGlob(value: string, globs: string | readonly string[]): boolean {
  return (typeof globs === 'string' ? [globs] : globs).some((g) => globRegExp(g).test(value));
}
