// The channels runtime's default port, apart from its server: the CLI names it without loading it.

/** Default port of `codex-harness serve`. */
export const DEFAULT_CHANNELS_PORT = 4317;
