// Ctrl-C in a command that runs a turn: the first one interrupts the turn at codex (the command
// then ends normally, cleaning up what it made); a second one ends the process at once.

/** A Ctrl-C watch for one turn: `signal` aborts on the first SIGINT until `dispose()`. */
export interface CtrlC {
  signal: AbortSignal;
  /** Whether Ctrl-C was pressed. */
  readonly pressed: boolean;
  dispose(): void;
}

/** Starts watching for Ctrl-C (SIGINT). */
export function watchCtrlC(): CtrlC {
  const controller = new AbortController();
  const onSigint = () => controller.abort(new Error("interrupted (Ctrl-C)"));
  // once: a second Ctrl-C gets node's default, which ends the process.
  process.once("SIGINT", onSigint);
  return {
    signal: controller.signal,
    get pressed() {
      return controller.signal.aborted;
    },
    dispose: () => process.off("SIGINT", onSigint),
  };
}
