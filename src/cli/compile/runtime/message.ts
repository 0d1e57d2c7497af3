/**
 * @module message: the `errorMessage` of a module `wymcp compile` writes, one line from the core's own distiller
 * (`groupErrors`: the likely anyOf branch, one group per location, locations sorted, keys escaped by log-safe.ts).
 * Only the words and the bounds are the module's: a server's schema may hold constants of any size, so they are named,
 * never quoted (shrink-code.ts drops `allowedValues` from the code for that reason).
 */
import { groupErrors, messageFor, UNION_MESSAGE } from "../../../core/distill.js";
import { ERROR_BUDGET } from "../../../core/error-budget.js";
import type { ValidationError } from "../../../../generated/validator.js";

/** Bounds of one error message, whatever the input. */
export const MESSAGE_LIMITS = { examinedErrors: 1000, locations: 8, messagesPerLocation: 4, locationLength: 120 } as const;

/** Words for the keywords a server's schemas use beyond the MCP schemas'; constants named, not quoted. */
export function toolWords(keyword: string, p: Record<string, unknown>): string {
  switch (keyword) {
    case "const":
      return "must equal the schema's constant";
    case "enum":
      return "must be one of the allowed values";
    case "maxProperties":
      return `must have at most ${p.limit} properties`;
    case "minProperties":
      return `must have at least ${p.limit} properties`;
    case "multipleOf":
      return `must be a multiple of ${p.multipleOf}`;
    case "uniqueItems":
      return "must not have duplicate items";
    case "additionalProperties":
    case "unevaluatedProperties":
      return "has a property the schema does not allow";
    case "not":
      return "must not match the excluded shape";
    default:
      return messageFor(keyword, p);
  }
}

/**
 * One line: how many locations failed, then each (at most `MESSAGE_LIMITS.locations`) with its messages. A union's
 * "must match one of the allowed shapes" is left out where its branch's errors lie below it: it only says where to look.
 */
export function toolMessage(all: readonly ValidationError[]): string {
  const { byLocation, locations: sorted } = groupErrors(all, MESSAGE_LIMITS, toolWords);
  const locations = sorted.filter((l) => {
    const messages = byLocation.get(l)!.messages;
    return !(messages.size === 1 && messages.has(UNION_MESSAGE) && sorted.some((other) => other.startsWith(`${l}/`)));
  });
  const shown = locations
    .slice(0, MESSAGE_LIMITS.locations)
    .map((l) => `${l === "" ? "(the value)" : l} ${[...byLocation.get(l)!.messages].join(", ")}`);
  const more = locations.length - shown.length;
  const count = `${locations.length}${all.length >= ERROR_BUDGET ? "+" : ""}`;
  return `${count} invalid location${count === "1" ? "" : "s"}: ${shown.join("; ")}${more > 0 ? `; and ${more} more` : ""}`;
}
