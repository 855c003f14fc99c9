// The part of picomatch 4 this lib uses (the package ships no types; @types/picomatch does not
// declare the `posix` entry point).
declare module 'picomatch/posix' {
  interface MakeReOptions {
    strictBrackets?: boolean;
    dot?: boolean;
    nocase?: boolean;
  }
  const picomatch: { makeRe(glob: string, options?: MakeReOptions): RegExp };
  export default picomatch;
}
