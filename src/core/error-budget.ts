/**
 * Most errors one generated validator collects before it stops: past this, an invalid body would only cost
 * time (copying and describing errors nobody reads), since the answer lists at most 20 locations. Codegen
 * writes this number into every validator (src/codegen/budget-helpers.ts); a list that reached it was cut
 * short, so the count of locations in the answer then reads "N+".
 */
export const ERROR_BUDGET = 64;
