// Fetching one image given by http(s) URL within a thread's `remoteImages` limits: size counted
// while the body arrives, type by header and by the bytes, one deadline, the turn's signal.
import type { RemoteImageLimits, RemoteImageType } from "./options.js";
import { MAX_IMAGE_REDIRECTS, REMOTE_IMAGE_TYPES, RemoteImageError } from "./remote-images.js";

/** The types an image may be fetched as, each with what its first bytes are. */
const SIGNATURES: Record<RemoteImageType, (bytes: Uint8Array) => boolean> = {
  "image/png": (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  "image/jpeg": (b) => startsWith(b, [0xff, 0xd8, 0xff]),
  "image/gif": (b) => ascii(b, 0, "GIF87a") || ascii(b, 0, "GIF89a"),
  "image/webp": (b) => ascii(b, 0, "RIFF") && ascii(b, 8, "WEBP"),
};

/** Content types that say nothing of the image: its bytes decide. */
const GENERIC_TYPES = new Set(["application/octet-stream", "binary/octet-stream"]);

/**
 * Fetches one image within `limits`: redirects followed (at most {@link MAX_IMAGE_REDIRECTS}, to
 * http or https only), the status checked, the served type checked before the body is read, the
 * size counted as it arrives, then the type the bytes show checked — all within `timeoutMs`.
 * Throws a {@link RemoteImageError}, or `signal`'s reason once it aborts.
 */
export async function fetchRemoteImage(
  url: string,
  limits: Required<RemoteImageLimits>,
  signal?: AbortSignal,
): Promise<{ type: RemoteImageType; bytes: Buffer }> {
  signal?.throwIfAborted();
  const shown = shownUrl(url);
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, limits.timeoutMs);
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const response = await follow(url, shown, limits, controller.signal);
    return await readImage(response, shown, url, limits);
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (timedOut) {
      throw new RemoteImageError(
        "timeout",
        url,
        `Fetching the image at ${shown} took longer than remoteImages.timeoutMs (${limits.timeoutMs} ms): raise timeoutMs, or check that the server answers.`,
        { cause: error },
      );
    }
    if (error instanceof RemoteImageError) throw error;
    throw new RemoteImageError(
      "network",
      url,
      `Cannot fetch the image at ${shown}: ${networkReason(error)}. Check the URL, and that this machine reaches its host.`,
      { cause: error },
    );
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
    // Whatever is still open of the exchange (a body left unread) is let go.
    controller.abort();
  }
}

/** Requests `url`, following redirects by hand: each hop is checked before it is taken. */
async function follow(
  url: string,
  shown: string,
  limits: Required<RemoteImageLimits>,
  signal: AbortSignal,
): Promise<Response> {
  let current = new URL(url);
  for (let hops = 0; ; hops++) {
    const response = await fetch(current, {
      redirect: "manual",
      signal,
      headers: { accept: limits.allowedTypes.join(", "), "user-agent": "codex-harness" },
    });
    if (![301, 302, 303, 307, 308].includes(response.status)) return response;
    await response.body?.cancel().catch(() => undefined);
    const location = response.headers.get("location");
    if (location === null) {
      throw new RemoteImageError(
        "status",
        url,
        `The server answered ${response.status} for the image at ${shown} but not where to (no Location header): give the image's own URL.`,
      );
    }
    if (hops === MAX_IMAGE_REDIRECTS) {
      throw new RemoteImageError(
        "redirect",
        url,
        `The image at ${shown} redirects more than ${MAX_IMAGE_REDIRECTS} times: give the image's final URL.`,
      );
    }
    const next = new URL(location, current);
    if (next.protocol !== "http:" && next.protocol !== "https:") {
      throw new RemoteImageError(
        "redirect",
        url,
        `The image at ${shown} redirects to a ${next.protocol} URL; only http and https are fetched: give the image's final URL.`,
      );
    }
    current = next;
  }
}

/** Reads the body of a final answer into an image, within the limits. */
async function readImage(
  response: Response,
  shown: string,
  url: string,
  limits: Required<RemoteImageLimits>,
): Promise<{ type: RemoteImageType; bytes: Buffer }> {
  if (!response.ok) {
    throw new RemoteImageError(
      "status",
      url,
      `The server answered ${response.status}${response.statusText ? ` ${response.statusText}` : ""} for the image at ${shown}: check the URL (an image that needs a sign-in cannot be fetched; download it and pass it as a local_image).`,
    );
  }
  const served = mediaTypeOf(response.headers.get("content-type"));
  const allowed = limits.allowedTypes.join(", ");
  if (served !== undefined && !GENERIC_TYPES.has(served) && !isAllowed(served, limits)) {
    throw new RemoteImageError(
      "type",
      url,
      REMOTE_IMAGE_TYPES.includes(served as RemoteImageType)
        ? `The image at ${shown} is ${served}, which remoteImages.allowedTypes (${allowed}) leaves out: add it there, or send another image.`
        : `The URL ${shown} serves ${served}, not an image of ${allowed}: give the URL of the image itself (not of a page that shows it).`,
    );
  }
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > limits.maxBytes) {
    throw new RemoteImageError(
      "too_large",
      url,
      `The image at ${shown} is ${declared} bytes, more than remoteImages.maxBytes (${limits.maxBytes}): raise maxBytes, or send a smaller image.`,
    );
  }
  const bytes = await readAtMost(response, limits.maxBytes, () => {
    return new RemoteImageError(
      "too_large",
      url,
      `The image at ${shown} sent more than remoteImages.maxBytes (${limits.maxBytes} bytes): raise maxBytes, or send a smaller image.`,
    );
  });
  const type = imageTypeOf(bytes);
  if (type === undefined || !isAllowed(type, limits)) {
    const said = served === undefined ? "" : ` (served as ${served})`;
    throw new RemoteImageError(
      "type",
      url,
      type === undefined
        ? `The data at ${shown}${said} is not a PNG, JPEG, GIF or WebP image: give the URL of the image itself.`
        : `The image at ${shown}${said} is ${type}, which remoteImages.allowedTypes (${allowed}) leaves out: add it there, or send another image.`,
    );
  }
  return { type, bytes };
}

/** The body, read chunk by chunk; throws `tooLarge()` as soon as it passes `maxBytes`. */
async function readAtMost(
  response: Response,
  maxBytes: number,
  tooLarge: () => Error,
): Promise<Buffer> {
  if (response.body === null) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}

/** The image type the first bytes show, if one of {@link REMOTE_IMAGE_TYPES}. */
export function imageTypeOf(bytes: Uint8Array): RemoteImageType | undefined {
  return REMOTE_IMAGE_TYPES.find((type) => SIGNATURES[type](bytes));
}

function isAllowed(type: string, limits: Required<RemoteImageLimits>): boolean {
  return limits.allowedTypes.includes(type as RemoteImageType);
}

/** `image/png` of `Image/PNG; charset=…`; `image/jpg` (common, not registered) is `image/jpeg`. */
function mediaTypeOf(header: string | null): string | undefined {
  const type = header?.split(";")[0]?.trim().toLowerCase();
  if (!type) return undefined;
  return type === "image/jpg" || type === "image/pjpeg" ? "image/jpeg" : type;
}

/** The URL for a message: no credentials, and its query (which may hold a token) left out. */
function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}${parsed.search ? "?…" : ""}`;
  } catch {
    return JSON.stringify(url);
  }
}

/** The reason Node's fetch gives (its `cause`, e.g. `connect ECONNREFUSED 127.0.0.1:9`). */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: unknown })?.cause;
  if (cause instanceof Error && cause.message) return cause.message;
  return error instanceof Error ? error.message : String(error);
}

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return prefix.every((byte, index) => bytes[index] === byte);
}

function ascii(bytes: Uint8Array, at: number, text: string): boolean {
  return [...text].every((char, index) => bytes[at + index] === char.charCodeAt(0));
}
