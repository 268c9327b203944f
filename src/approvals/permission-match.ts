// What the path and host entries of an agent-spaces `permissions.toml` match: paths (with `~`,
// globs, roots) and network hosts (with ports and `*.` wildcards).
import os from "node:os";
import path from "node:path";

const DEFAULT_PORTS: Record<string, number> = { http: 80, https: 443 };
const HOST =
  /^(?:\*\.)?(?:[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?\.)*[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?$/;

/** `~` -> home, then resolves against `baseDir` (absolute and normalised). */
export function resolvePermissionPath(entry: string, baseDir: string): string {
  const expanded =
    entry === "~" || entry.startsWith("~/") ? path.join(os.homedir(), entry.slice(1)) : entry;
  return path.resolve(baseDir, expanded);
}

/** Whether `target` is `root` or below it (both absolute). */
export function isInside(target: string, root: string): boolean {
  const rel = path.relative(root, target);
  return rel === "" || (!rel.startsWith(`..${path.sep}`) && rel !== ".." && !path.isAbsolute(rel));
}

/**
 * Whether a deny path entry matches `target` (absolute). Entries starting with `/`, `~`, `./` or
 * `../` are anchored (resolved against `baseDir`) and match the path or a directory above it.
 * Others float: they match the path relative to each root holding it (or its basename, outside
 * all roots), a directory of that relative path, or any single segment of it (so
 * `package-lock.json` and `.env` match at any depth).
 * `**` matches any run of path segments, `*` any characters within one segment.
 */
export function pathDenied(
  target: string,
  patterns: readonly string[],
  roots: readonly string[],
  baseDir: string,
): boolean {
  return pathDeniedBy(target, patterns, roots, baseDir) !== undefined;
}

/** The first deny path entry matching `target` (as {@link pathDenied} matches), or undefined. */
export function pathDeniedBy(
  target: string,
  patterns: readonly string[],
  roots: readonly string[],
  baseDir: string,
): string | undefined {
  const inRoots = roots.filter((root) => isInside(target, root));
  const rels = inRoots.map((root) => path.relative(root, target).split(path.sep).filter(Boolean));
  if (rels.length === 0) rels.push([path.basename(target)]);
  const prefixes = (parts: string[]) => parts.map((_, k) => parts.slice(0, k + 1).join("/"));
  return patterns.find((pattern) => {
    if (/^(?:~|\.{1,2}(?:\/|$)|\/)/.test(pattern)) {
      const regex = pathGlob(resolvePermissionPath(pattern, baseDir).split(path.sep).join("/"));
      const segments = target.split(path.sep).filter(Boolean);
      return prefixes(segments).some((p) => regex.test(`/${p}`));
    }
    const regex = pathGlob(pattern.replace(/\/+$/, ""));
    return rels.some(
      (rel) => rel.some((s) => regex.test(s)) || prefixes(rel).some((p) => regex.test(p)),
    );
  });
}

/**
 * A path glob as a regex over `/`-separated text: `**` any run of segments, `*` any characters
 * within one segment, anything else literal.
 */
export function pathGlob(pattern: string): RegExp {
  let body = "";
  for (let k = 0; k < pattern.length; k++) {
    if (pattern.startsWith("**/", k)) {
      body += "(?:[^/]*/)*";
      k += 2;
    } else if (pattern.startsWith("**", k)) {
      body += ".*";
      k += 1;
    } else if (pattern[k] === "*") body += "[^/]*";
    else body += (pattern[k] as string).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${body}$`, "s");
}

/** A host entry or request host split: lower-cased, trailing dot and IPv6 brackets removed. */
export function parseHost(
  entry: string,
): { host: string; wildcard: boolean; port: number | null } | null {
  const match = /^(\*\.)?(\[[0-9a-f:.]+\]|[^:[\]]+|[0-9a-f:]*:[0-9a-f:]*)(?::(\d{1,5}))?$/i.exec(
    entry.trim(),
  );
  if (!match) return null;
  const [, star, rawHost = "", rawPort] = match;
  const host = rawHost
    .toLowerCase()
    .replace(/\.$/, "")
    .replace(/^\[|\]$/g, "");
  const port = rawPort === undefined ? null : Number(rawPort);
  if (port !== null && (port < 1 || port > 65535)) return null;
  if (!host.includes(":") && !HOST.test(host)) return null;
  return { host, wildcard: star !== undefined, port };
}

/**
 * Whether a host entry matches a requested host. `*.domain` matches subdomains only; a port in
 * the entry must equal the request's (its own, or 80/443 from the protocol). As a deny (`deny`),
 * an entry also matches subdomains and any port it cannot rule out.
 */
export function hostMatches(
  entry: string,
  request: { host: string; protocol: string },
  deny = false,
): boolean {
  const rule = parseHost(entry);
  const target = parseHost(request.host);
  if (rule === null || target === null) return deny;
  const port = target.port ?? DEFAULT_PORTS[request.protocol] ?? null;
  const sub = target.host.endsWith(`.${rule.host}`);
  if (!(rule.wildcard ? sub : target.host === rule.host || (deny && sub))) return false;
  if (rule.port === null) return true;
  return port === null ? deny : port === rule.port;
}
