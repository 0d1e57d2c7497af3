/** The core's brief answer (src/core/brief-answer.ts) as the text of an expression, for `wymcp compile`'s modules. */
export declare const BRIEF_ANSWER_SOURCE: string;
