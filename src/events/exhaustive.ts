// Marks a switch over a union of event (or item) types as complete, checked by the compiler.

/**
 * Put in a switch's `default:` after every member of the union has a `case` (those a consumer
 * ignores listed too): when a new member is added to the union, the call fails to compile, so each
 * consumer decides about it instead of dropping it quietly. At run time it does nothing: a value
 * outside the union (say, from a newer codex) falls through to what follows.
 */
export function everyCaseHandled(_value: never): void {}
