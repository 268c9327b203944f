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

/** The signals after which a command's telemetry is flushed before the process ends. */
const ENDING_SIGNALS = ["SIGINT", "SIGTERM"] as const;

/**
 * On SIGINT or SIGTERM that nothing else handles (whose default would end the process), runs
 * `flush` (the caller bounds it), then ends the process as the signal would have; a second signal
 * meanwhile ends it at once. A signal the command handles itself (a turn's first Ctrl-C, a
 * server's SIGTERM) is left to it: the command ends and flushes then. Register it before the
 * command's own handlers. Returns the way to stop watching.
 */
export function flushOnSignals(flush: () => Promise<void>): () => void {
  let flushing = false;
  const handlers = ENDING_SIGNALS.map((signal) => {
    const handler = () => {
      if (!flushing && process.listenerCount(signal) > 1) return;
      if (flushing) return end(signal);
      flushing = true;
      void flush().finally(() => end(signal));
    };
    return [signal, handler] as const;
  });
  const stop = () => {
    for (const [signal, handler] of handlers) process.off(signal, handler);
  };
  const end = (signal: NodeJS.Signals) => {
    stop();
    process.kill(process.pid, signal);
  };
  for (const [signal, handler] of handlers) process.on(signal, handler);
  return stop;
}
