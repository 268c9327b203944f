// Polling for a condition in tests that watch another process or server: one helper, one deadline.

/**
 * Calls `probe` every `intervalMs` until it returns a truthy value, and resolves with that value;
 * rejects naming `what` after `timeoutMs`. A probe that throws counts as not yet.
 */
export async function eventually<T>(
  what: string,
  probe: () => T | Promise<T>,
  { timeoutMs = 20_000, intervalMs = 20 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await Promise.resolve()
      .then(probe)
      .catch(() => undefined);
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
