/**
 * @module budget-helpers: the generated validators stop collecting errors at `ERROR_BUDGET`, so the cost of an
 * invalid body is bounded by the budget, not by the number of invalid items in it.
 *
 * How the early exit keeps Ajv's verdicts: an error is pushed only where the innermost schema being applied
 * fails, and the only schemas whose failure does not fail their parent are anyOf branches (codegen refuses
 * oneOf and not, see compile-validators.ts). So when a push fills the budget, the validator throws; the
 * innermost enclosing anyOf branch catches it and counts as failed (it was), keeping the errors it has; with no
 * enclosing branch, the exported validator catches it and returns false (the message fails). A branch takes
 * a callee's first errors only up to the budget, so past it a list grows by one error per failed branch and
 * union on the way out (their anyOf errors, which the runtime needs to pick the likely branch), not per item.
 */
import { ERROR_BUDGET } from "../core/error-budget.js";

/**
 * The helpers every compacted module carries, as source text (bytes independent of how this file is
 * transpiled): `pushError` and `collectErrors` replace Ajv's push and concat, `absorbErrors` is the anyOf
 * branch's catch, `withinBudget` wraps each exported validator.
 */
export const BUDGET_HELPERS_SOURCE = `class ErrorBudgetReached { constructor(errors) { this.errors = errors; } }
function pushError(list, error) { if (list.push(error) >= ${ERROR_BUDGET}) throw new ErrorBudgetReached(list); }
function collectErrors(list, errors) { for (let i = 0; i < errors.length; i++) pushError(list, errors[i]); }
function absorbErrors(list, thrown) {
  if (!(thrown instanceof ErrorBudgetReached)) throw thrown;
  const from = thrown.errors;
  if (from === list) return list.length;
  // The first errors found, as many as fit under the budget; then all that came after the budget ran out: the
  // failed branches and unions on the way out, few and bounded by the schema, which the runtime needs.
  for (let i = 0; i < from.length && i < ${ERROR_BUDGET} && list.length < ${ERROR_BUDGET - 1}; i++) list.push(from[i]);
  for (let i = ${ERROR_BUDGET}; i < from.length; i++) list.push(from[i]);
  return list.length;
}
function withinBudget(validate) {
  const bounded = function (data, context) {
    try {
      const valid = validate(data, context);
      bounded.errors = validate.errors;
      return valid;
    } catch (thrown) {
      if (!(thrown instanceof ErrorBudgetReached)) throw thrown;
      bounded.errors = thrown.errors;
      return false;
    }
  };
  return bounded;
}`;
