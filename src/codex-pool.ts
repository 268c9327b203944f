// CodexPool: a Codex whose threads are spread over several codex app-servers.

import type { RemoteOptions } from "./app-server/remote.js";
import { Codex } from "./codex.js";
import { CodexHarnessError } from "./errors.js";
import type { CodexOptions, EventsMode } from "./turns/options.js";

/** One member of a {@link CodexPool}: a codex app-server it starts, or one running elsewhere. */
export type PoolEndpoint = "local" | RemoteOptions;

/** Options of {@link CodexPool}. */
export interface CodexPoolOptions<M extends EventsMode = EventsMode>
  extends Omit<CodexOptions<M>, "poolSize" | "transport"> {
  /** How many app-server processes (default 2). */
  size?: number;
  /**
   * The app-servers to spread threads over, instead of `size` local ones: `"local"` (started
   * with this pool's options) or a `remote` (`{ url, token?, tokenFile?, jwt? }`), mixed freely.
   */
  endpoints?: PoolEndpoint[];
}

/**
 * A `Codex` whose threads are spread over several `codex app-server` processes, for hosts that
 * run many agents: a new thread goes to the least busy process and stays there; a process with no
 * turn for `idleShutdownMs` (default 5 minutes) is stopped and started again when needed.
 */
export class CodexPool<M extends EventsMode = "sdk"> extends Codex<M> {
  constructor(options: CodexPoolOptions<M> = {}) {
    if (options.endpoints !== undefined) {
      if (!Array.isArray(options.endpoints) || options.endpoints.length === 0) {
        throw new CodexHarnessError(
          "invalid_option",
          'endpoints must list at least one app-server: "local" or { url, token? }.',
        );
      }
      if (options.size !== undefined || options.remote !== undefined) {
        throw new CodexHarnessError(
          "invalid_option",
          "endpoints says which app-servers make the pool: leave out size and remote.",
        );
      }
    }
    super({
      idleShutdownMs: 5 * 60_000,
      ...options,
      transport: "app-server",
      poolSize: options.size ?? 2,
    });
  }
}
