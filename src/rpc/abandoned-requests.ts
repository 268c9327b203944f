// Requests we gave up on (timeout, abort) whose late successful answer must be undone.

/** How many given-up requests with an `onLateAnswer` a peer remembers. */
export const MAX_ABANDONED = 1_000;

/**
 * The requests given up on, by id, with the undo for each; at most {@link MAX_ABANDONED}, the
 * oldest forgotten first.
 */
export class AbandonedRequests {
  private readonly byId = new Map<number, (result: unknown) => void>();

  add(id: number, onLateAnswer: (result: unknown) => void): void {
    this.byId.set(id, onLateAnswer);
    if (this.byId.size > MAX_ABANDONED) {
      const oldest = this.byId.keys().next().value as number;
      this.byId.delete(oldest);
    }
  }

  /**
   * Takes the answer to a given-up request: a success runs its undo (which may throw), a refusal
   * needs none. Returns false when `id` was not given up on.
   */
  take(id: number, answer: { result?: unknown }, success: boolean): boolean {
    const onLateAnswer = this.byId.get(id);
    if (!onLateAnswer) return false;
    this.byId.delete(id);
    if (success) onLateAnswer(answer.result);
    return true;
  }

  clear(): void {
    this.byId.clear();
  }
}
