// Unit tests of fetching images given by URL (`remoteImages`), against a loopback server of images
// honest and not: limits on size (while reading), type (header and bytes), time, redirects; aborts.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { CodexHarnessError } from "../../src/errors.js";
import type { RemoteImageLimits, UserInput } from "../../src/turns/options.js";
import { fetchRemoteImage, imageTypeOf } from "../../src/turns/remote-image-fetch.js";
import {
  checkRemoteImages,
  DEFAULT_REMOTE_IMAGE_LIMITS,
  inlineRemoteImages,
  MAX_IMAGE_REDIRECTS,
  RemoteImageError,
  remoteImageLimits,
} from "../../src/turns/remote-images.js";
import { eventually } from "../support/eventually.js";
import { GIF, ImageServer, JPEG, PNG, WEBP } from "../support/image-server.js";

let server: ImageServer;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

before(async () => {
  server = await ImageServer.start();
  process.on("unhandledRejection", onUnhandled);
});

after(async () => {
  await server.close();
  process.off("unhandledRejection", onUnhandled);
  assert.deepEqual(unhandled, [], "no unhandled rejection");
});

const limits = (given: RemoteImageLimits = {}) => ({ ...DEFAULT_REMOTE_IMAGE_LIMITS, ...given });
const fetchOf = (path: string, given?: RemoteImageLimits, signal?: AbortSignal) =>
  fetchRemoteImage(server.url(path), limits(given), signal);

/** A `RemoteImageError` of `reason` whose message matches `pattern`. */
const failedWith = (reason: string, pattern: RegExp) => (error: unknown) => {
  assert.ok(error instanceof RemoteImageError, `a RemoteImageError, got ${String(error)}`);
  assert.ok(error instanceof CodexHarnessError);
  assert.equal(error.code, "remote_image_failed");
  assert.equal(error.reason, reason);
  assert.match(error.message, pattern);
  return true;
};

describe("fetchRemoteImage: what is taken", () => {
  it("a PNG served as one: its bytes and type", async () => {
    const image = await fetchOf("/pixel.png");
    assert.equal(image.type, "image/png");
    assert.deepEqual(image.bytes, PNG);
  });

  it("GIF, JPEG (served as the common image/jpg) and WebP, by their bytes", async () => {
    assert.equal((await fetchOf("/pixel.gif")).type, "image/gif");
    assert.equal((await fetchOf("/pixel.jpg")).type, "image/jpeg");
    assert.equal((await fetchOf("/pixel.webp")).type, "image/webp");
  });

  it("no type or a generic one: the bytes decide", async () => {
    assert.equal((await fetchOf("/octet")).type, "image/png");
    assert.equal((await fetchOf("/untyped")).type, "image/png");
  });

  it("a PNG served as a JPEG (both allowed) is sent as the PNG it is", async () => {
    assert.equal((await fetchOf("/mislabelled")).type, "image/png");
  });

  it("redirects are followed (302, 308, two in a row)", async () => {
    for (const path of ["/redirect", "/redirect-308", "/redirect-twice"]) {
      assert.deepEqual((await fetchOf(path)).bytes, PNG, path);
    }
  });
});

describe("fetchRemoteImage: what is refused, and what to change", () => {
  it("too large by its Content-Length: refused before the body is read", async () => {
    await assert.rejects(
      fetchOf("/declared-big.png", { maxBytes: 1000 }),
      failedWith(
        "too_large",
        /is 4096 bytes, more than remoteImages\.maxBytes \(1000\): raise maxBytes/,
      ),
    );
  });

  it("too large while streaming (no size given, no end): stopped at the limit, the connection let go", async () => {
    const before = server.closed("/endless.png");
    await assert.rejects(
      fetchOf("/endless.png", { maxBytes: 100_000 }),
      failedWith("too_large", /sent more than remoteImages\.maxBytes \(100000 bytes\)/),
    );
    await eventually("the connection closed", () => server.closed("/endless.png") > before);
  });

  it("a page, not an image: refused by its type, the body unread", async () => {
    await assert.rejects(
      fetchOf("/page.html"),
      failedWith("type", /serves text\/html, not an image of .*: give the URL of the image itself/),
    );
  });

  it("a lying server (image/png, a page's bytes) is caught by the bytes", async () => {
    await assert.rejects(
      fetchOf("/lying.png"),
      failedWith("type", /\(served as image\/png\) is not a PNG, JPEG, GIF or WebP image/),
    );
    await assert.rejects(fetchOf("/empty.png"), failedWith("type", /is not a PNG/));
  });

  it("a type allowedTypes leaves out: by its header, and by its bytes", async () => {
    await assert.rejects(
      fetchOf("/pixel.gif", { allowedTypes: ["image/png"] }),
      failedWith(
        "type",
        /is image\/gif, which remoteImages\.allowedTypes \(image\/png\) leaves out: add it there/,
      ),
    );
    await assert.rejects(
      fetchOf("/octet", { allowedTypes: ["image/jpeg"] }),
      failedWith(
        "type",
        /\(served as application\/octet-stream\) is image\/png, which remoteImages\.allowedTypes/,
      ),
    );
  });

  it("an error status: the status, and what to check", async () => {
    await assert.rejects(
      fetchOf("/missing.png"),
      failedWith(
        "status",
        /answered 404 Not Found for the image at http:\/\/127\.0\.0\.1:\d+\/missing\.png: check the URL/,
      ),
    );
  });

  it("slow to answer, or stalled mid-body: timeoutMs, the connection let go", async () => {
    for (const path of ["/hang.png", "/stall.png"]) {
      const before = server.closed(path);
      const started = Date.now();
      await assert.rejects(
        fetchOf(path, { timeoutMs: 200 }),
        failedWith(
          "timeout",
          /took longer than remoteImages\.timeoutMs \(200 ms\): raise timeoutMs/,
        ),
      );
      assert.ok(Date.now() - started < 5_000, `${path}: gave up on time`);
      await eventually(`${path}: the connection closed`, () => server.closed(path) > before);
    }
  });

  it("redirects: too many, to a scheme other than http(s), without a Location", async () => {
    const before = server.requested("/loop");
    await assert.rejects(
      fetchOf("/loop"),
      failedWith("redirect", new RegExp(`redirects more than ${MAX_IMAGE_REDIRECTS} times`)),
    );
    assert.equal(server.requested("/loop") - before, MAX_IMAGE_REDIRECTS + 1);
    await assert.rejects(
      fetchOf("/to-file"),
      failedWith("redirect", /redirects to a file: URL; only http and https are fetched/),
    );
    await assert.rejects(fetchOf("/no-location"), failedWith("status", /no Location header/));
  });

  it("nothing listening: a network failure naming the reason", async () => {
    const gone = await ImageServer.start();
    const url = gone.url("/pixel.png");
    await gone.close();
    await assert.rejects(
      fetchRemoteImage(url, limits()),
      failedWith("network", /Cannot fetch the image at .*ECONNREFUSED/),
    );
  });

  it("the message leaves out the URL's query (it may hold a token); `url` keeps it", async () => {
    await assert.rejects(fetchOf("/missing.png?token=secret"), (error: unknown) => {
      assert.ok(error instanceof RemoteImageError);
      assert.doesNotMatch(error.message, /secret/);
      assert.match(error.message, /missing\.png\?…/);
      assert.equal(error.url, server.url("/missing.png?token=secret"));
      return true;
    });
  });
});

describe("fetchRemoteImage: the caller's signal", () => {
  it("an abort while waiting for the server rejects with the signal's reason at once", async () => {
    const controller = new AbortController();
    const before = server.closed("/hang.png");
    // This request's arrival, not an earlier test's request of the same path.
    const asked = server.requested("/hang.png");
    const fetching = fetchOf("/hang.png", {}, controller.signal);
    await eventually("the request arrived", () => server.requested("/hang.png") > asked);
    const reason = new Error("stop");
    controller.abort(reason);
    await assert.rejects(fetching, (error) => error === reason);
    await eventually("the connection closed", () => server.closed("/hang.png") > before);
  });

  it("an abort mid-body, too; an aborted signal fetches nothing", async () => {
    const controller = new AbortController();
    const asked = server.requested("/stall.png");
    const fetching = fetchOf("/stall.png", {}, controller.signal);
    await eventually("the request arrived", () => server.requested("/stall.png") > asked);
    controller.abort();
    await assert.rejects(fetching, { name: "AbortError" });
    const before = server.requested("/pixel.png");
    await assert.rejects(fetchOf("/pixel.png", {}, AbortSignal.abort()), { name: "AbortError" });
    assert.equal(server.requested("/pixel.png"), before);
  });
});

describe("inlineRemoteImages", () => {
  it("puts each image given by URL inline as a data: URL; the rest stays as it is", async () => {
    const input: UserInput[] = [
      { type: "text", text: "look" },
      { type: "image", url: server.url("/pixel.png") },
      { type: "image", url: "data:image/gif;base64,R0lG" },
      { type: "local_image", path: "/a.png" },
      { type: "image", url: server.url("/redirect") },
    ];
    const inlined = await inlineRemoteImages(input, "fetch");
    const data = `data:image/png;base64,${PNG.toString("base64")}`;
    assert.deepEqual(inlined, [
      input[0],
      { type: "image", url: data },
      input[2],
      input[3],
      { type: "image", url: data },
    ]);
  });

  it('"pass" (or nothing) leaves the input alone and fetches nothing', async () => {
    const input: UserInput[] = [{ type: "image", url: server.url("/pixel.png") }];
    const before = server.requested("/pixel.png");
    assert.equal(await inlineRemoteImages(input, "pass"), input);
    assert.equal(await inlineRemoteImages(input, undefined), input);
    assert.equal(server.requested("/pixel.png"), before);
  });

  it("limits given as an object mean fetching with them; the first failure throws", async () => {
    await assert.rejects(
      inlineRemoteImages(
        [
          { type: "image", url: server.url("/pixel.png") },
          { type: "image", url: server.url("/pixel.gif") },
        ],
        { allowedTypes: ["image/png"] },
      ),
      failedWith("type", /pixel\.gif is image\/gif/),
    );
  });
});

describe("the remoteImages option", () => {
  it("limits: defaults, filled in", () => {
    assert.equal(remoteImageLimits(undefined), undefined);
    assert.equal(remoteImageLimits("pass"), undefined);
    assert.deepEqual(remoteImageLimits("fetch"), {
      maxBytes: 20 * 1024 * 1024,
      timeoutMs: 30_000,
      allowedTypes: ["image/png", "image/jpeg", "image/gif", "image/webp"],
    });
    assert.deepEqual(remoteImageLimits({ maxBytes: 5 }), {
      ...DEFAULT_REMOTE_IMAGE_LIMITS,
      maxBytes: 5,
    });
  });

  it("a bad value is invalid_option naming it", () => {
    const invalid = (pattern: RegExp) => (error: unknown) =>
      error instanceof CodexHarnessError &&
      error.code === "invalid_option" &&
      pattern.test(error.message);
    for (const ok of [
      undefined,
      "pass",
      "fetch",
      {},
      { maxBytes: 1, timeoutMs: 1, allowedTypes: ["image/png"] },
    ]) {
      checkRemoteImages(ok);
    }
    assert.throws(
      () => checkRemoteImages("download"),
      invalid(/remoteImages must be "pass", "fetch" or limits.*"download"/),
    );
    assert.throws(
      () => checkRemoteImages({ maxSize: 1 }),
      invalid(/has no option maxSize; its options are maxBytes/),
    );
    assert.throws(
      () => checkRemoteImages({ maxBytes: 0 }),
      invalid(/maxBytes must be a whole number > 0, got 0/),
    );
    assert.throws(() => checkRemoteImages({ timeoutMs: "1s" }), invalid(/timeoutMs must be/));
    assert.throws(
      () => checkRemoteImages({ allowedTypes: ["image/svg+xml"] }, "ThreadOptions.remoteImages"),
      invalid(
        /ThreadOptions\.remoteImages\.allowedTypes must list some of "image\/png".*"image\/svg\+xml"/,
      ),
    );
    assert.throws(() => checkRemoteImages({ allowedTypes: [] }), invalid(/allowedTypes must list/));
  });

  it("imageTypeOf: each type by its first bytes, and nothing else", () => {
    assert.equal(imageTypeOf(PNG), "image/png");
    assert.equal(imageTypeOf(GIF), "image/gif");
    assert.equal(imageTypeOf(JPEG), "image/jpeg");
    assert.equal(imageTypeOf(WEBP), "image/webp");
    assert.equal(imageTypeOf(Buffer.from("RIFF\0\0\0\0WAVE")), undefined);
    assert.equal(imageTypeOf(Buffer.from("<svg/>")), undefined);
    assert.equal(imageTypeOf(Buffer.alloc(0)), undefined);
  });
});
