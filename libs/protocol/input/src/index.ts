export { INPUT_LIMITS, checkInput, checkText, parseJsonInput, utf8Bytes } from './input-limits';
export type { InputLimits, InputProblem, InputProblemKind, ParsedInput } from './input-limits';
