// `serve`'s store when a chat names no allow-list: opened before the runtime to ask whether people
// are linked to that chat's users, then handed to the runtime (which closes it).
import { openStore } from "../channels/http-server.js";
import { platformOf } from "../channels/people-links.js";
import type { InteractionStore } from "../channels/store.js";

/** The store of `serve`'s `--store` (or data directory), opened on the first question only. */
export class EarlyStore {
  private store: InteractionStore | undefined;

  constructor(
    private readonly url: string | undefined,
    private readonly dataDir: string,
  ) {}

  /** Whether people are linked to users of `platform` (`slack`, `telegram`, `discord`). */
  readonly linked = async (platform: string): Promise<boolean> => {
    this.store ??= await openStore(this.url, this.dataDir);
    const links = (await this.store.people?.links()) ?? [];
    return links.some((link) => platformOf(link.platformUser) === platform);
  };

  /**
   * Runs `work` (which may ask {@link linked}); when it fails, closes the store it opened (the
   * runtime, which would have taken it over, is not started then).
   */
  async deciding<T>(work: (linked: (platform: string) => Promise<boolean>) => Promise<T>) {
    try {
      return await work(this.linked);
    } catch (error) {
      await this.store?.close().catch(() => undefined);
      this.store = undefined;
      throw error;
    }
  }

  /** What `startChannelsServer` takes: the store opened here, else `--store`'s URL (if any). */
  serverOptions(): { store: InteractionStore } | { storeUrl: string } | Record<string, never> {
    if (this.store) return { store: this.store };
    return this.url === undefined ? {} : { storeUrl: this.url };
  }
}
