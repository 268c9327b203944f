// Images given by http(s) URL, sent inline when a thread asks (`remoteImages`): the option, its
// limits and error, and the input with each such image fetched (remote-image-fetch.ts, loaded then).
import { CodexHarnessError } from "../errors.js";
import type { RemoteImageLimits, RemoteImages, RemoteImageType, UserInput } from "./options.js";

/** Every type {@link RemoteImageLimits.allowedTypes} may name. */
export const REMOTE_IMAGE_TYPES: RemoteImageType[] = [
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
];

/** The limits of `remoteImages: "fetch"`. */
export const DEFAULT_REMOTE_IMAGE_LIMITS: Readonly<Required<RemoteImageLimits>> = {
  maxBytes: 20 * 1024 * 1024,
  timeoutMs: 30_000,
  allowedTypes: REMOTE_IMAGE_TYPES,
};

/** How many redirects a fetch follows (each to http or https only). */
export const MAX_IMAGE_REDIRECTS = 5;

/** Why fetching an image failed (see {@link RemoteImageError}). */
export type RemoteImageFailure =
  | "too_large"
  | "type"
  | "status"
  | "redirect"
  | "timeout"
  | "network";

/**
 * An image given by URL could not be fetched within the thread's `remoteImages` limits. `reason`
 * says which limit or failure, the message what to change; `url` is the URL as given (the message
 * leaves out its query, which may hold a token). The turn was not started.
 */
export class RemoteImageError extends CodexHarnessError {
  declare readonly code: "remote_image_failed";

  constructor(
    readonly reason: RemoteImageFailure,
    readonly url: string,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super("remote_image_failed", message, options);
  }
}

/** The limits `remoteImages` asks for, or undefined when it does not ask for fetching. */
export function remoteImageLimits(
  remoteImages: RemoteImages | undefined,
): Required<RemoteImageLimits> | undefined {
  if (remoteImages === undefined || remoteImages === "pass") return undefined;
  if (remoteImages === "fetch") return DEFAULT_REMOTE_IMAGE_LIMITS;
  return { ...DEFAULT_REMOTE_IMAGE_LIMITS, ...remoteImages };
}

/** Checks a `remoteImages` option up front; throws `invalid_option` naming the bad value. */
export function checkRemoteImages(value: unknown, name = "remoteImages"): void {
  if (value === undefined || value === "pass" || value === "fetch") return;
  const bad = (what: string) => new CodexHarnessError("invalid_option", `${name}${what}`);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw bad(
      ` must be "pass", "fetch" or limits ({ maxBytes, timeoutMs, allowedTypes }), got ${JSON.stringify(value)}.`,
    );
  }
  const limits = value as Record<string, unknown>;
  for (const key of Object.keys(limits)) {
    if (!(key in DEFAULT_REMOTE_IMAGE_LIMITS)) {
      throw bad(` has no option ${key}; its options are maxBytes, timeoutMs and allowedTypes.`);
    }
  }
  for (const key of ["maxBytes", "timeoutMs"] as const) {
    const given = limits[key];
    if (
      given !== undefined &&
      !(typeof given === "number" && Number.isInteger(given) && given > 0)
    ) {
      throw bad(`.${key} must be a whole number > 0, got ${JSON.stringify(given)}.`);
    }
  }
  const types = limits.allowedTypes;
  if (
    types !== undefined &&
    (!Array.isArray(types) ||
      types.length === 0 ||
      types.some((type) => !REMOTE_IMAGE_TYPES.includes(type as RemoteImageType)))
  ) {
    throw bad(
      `.allowedTypes must list some of ${REMOTE_IMAGE_TYPES.map((t) => JSON.stringify(t)).join(", ")} (the types models take), got ${JSON.stringify(types)}.`,
    );
  }
}

/**
 * The input with each `image` given by an http(s) URL fetched and put inline, as a `data:` URL of
 * the type its bytes show — when `remoteImages` asks for fetching; otherwise `input` itself. One
 * image after the other; the first failure throws its {@link RemoteImageError}; an abort of
 * `signal` throws its reason.
 */
export async function inlineRemoteImages(
  input: UserInput[],
  remoteImages: RemoteImages | undefined,
  signal?: AbortSignal,
): Promise<UserInput[]> {
  const limits = remoteImageLimits(remoteImages);
  if (limits === undefined || !input.some(isRemoteImage)) return input;
  const inlined: UserInput[] = [];
  for (const item of input) {
    if (!isRemoteImage(item)) {
      inlined.push(item);
      continue;
    }
    // The fetching code loads only when an image is to be fetched.
    const { fetchRemoteImage } = await import("./remote-image-fetch.js");
    const image = await fetchRemoteImage(item.url, limits, signal);
    inlined.push({
      type: "image",
      url: `data:${image.type};base64,${image.bytes.toString("base64")}`,
    });
  }
  return inlined;
}

/** Whether an input item is an image given by an http(s) URL. */
export function isRemoteImage(item: UserInput): item is { type: "image"; url: string } {
  return item.type === "image" && /^https?:/i.test(item.url);
}
