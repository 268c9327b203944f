// Compile-time checks for the type tests.

/** true when A and B are the same type (not merely assignable). */
export type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
