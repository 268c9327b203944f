// A command run through `npx` outlives `kill` of its job: npm forwards SIGTERM to the `sh -c` it
// ran the command in, which dies without passing it on, and the command is left running, its
// parent gone (a try-out's scripted model holding its port). So a command npm started watches its
// parent, and once it is gone stops as SIGTERM would stop it.

/** How often the parent is looked at. */
const WATCH_EVERY_MS = 500;

/**
 * When `env` says npm started this process (`npm exec`, `npx`), sends this process SIGTERM once
 * its parent is gone (it was given to another parent), so each command stops as SIGTERM stops
 * it. The watch keeps nothing alive. Returns how to stop watching.
 */
export function stopWithLauncher(
  env: Record<string, string | undefined>,
  parentPid: () => number = () => process.ppid,
  stop: () => void = () => process.kill(process.pid, "SIGTERM"),
): () => void {
  if (env.npm_command !== "exec") return () => {};
  const launcher = parentPid();
  const timer = setInterval(() => {
    if (parentPid() === launcher) return;
    clearInterval(timer);
    stop();
  }, WATCH_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
