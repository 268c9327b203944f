// Which `Host` names (and page origins) the runtime answers: its own only, so that a web page on
// another name that resolves to the runtime's address (DNS rebinding) never gets the inbox or API.
import { ChannelsError } from "./errors.js";

/** The names a runtime answers to by default: loopback. */
export const LOOPBACK_HOST_NAMES: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];

const WILDCARDS = new Set(["0.0.0.0", "::", "[::]", ""]);

/** The runtime's own host names, and whether a `Host` header or an `Origin` is one of them. */
export class HostNames {
  private readonly names: Set<string>;
  private readonly configured: boolean;

  /**
   * `listenHost` is the interface the runtime listens on (counted unless a wildcard such as
   * 0.0.0.0); `allowed`, when given, replaces the loopback names.
   */
  constructor(
    listenHost: string,
    allowed: readonly string[] | undefined,
    private readonly port: () => number,
  ) {
    this.configured = allowed !== undefined;
    this.names = new Set((allowed ?? LOOPBACK_HOST_NAMES).map(normalize));
    const own = normalize(listenHost.includes(":") ? `[${listenHost}]` : listenHost);
    if (!WILDCARDS.has(own)) this.names.add(own);
  }

  /** Throws `forbidden_host` (403) unless `header` (a `Host` header) names this runtime. */
  check(header: string | undefined): void {
    const name = header === undefined ? undefined : hostnameOf(header);
    if (name !== undefined && this.names.has(name)) return;
    throw new ChannelsError(
      "forbidden_host",
      403,
      `This runtime does not answer to the host name ${JSON.stringify(header ?? "")}; it answers to ${[...this.names].join(", ")}. Open it under one of those, or start it with that name allowed (allowedHosts, serve --allowed-host).`,
    );
  }

  /**
   * Whether a page at `origin` is one of the runtime's own: one of its names, on its port (or any
   * port for configured names, which may sit behind a proxy).
   */
  ownsOrigin(origin: string): boolean {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return false;
    if (!this.names.has(normalize(url.hostname))) return false;
    return this.configured || url.port === String(this.port());
  }
}

/** The name part of a `Host` header (`name`, `name:port`, `[v6]:port`), lower case. */
function hostnameOf(header: string): string | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::\d{1,5})?$/.exec(header.trim());
  return match?.[1] === undefined ? undefined : normalize(match[1]);
}

function normalize(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, "");
}
