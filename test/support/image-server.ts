// A loopback HTTP server of images, honest and not: the right type, a wrong or lying one, too big,
// slow, redirecting — for the tests of fetching images given by URL (`remoteImages`).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { closeServer, listenOnLoopback } from "./fake-http.js";

/** A 1×1 PNG. */
export const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);
/** A 1×1 GIF. */
export const GIF = Buffer.from(
  "R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==",
  "base64",
);
/** The first bytes of a JPEG and of a WebP: enough for the type their bytes show. */
export const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46]);
export const WEBP = Buffer.concat([
  Buffer.from("RIFF"),
  Buffer.from([0x1a, 0, 0, 0]),
  Buffer.from("WEBPVP8L"),
  Buffer.alloc(8),
]);

type Route = (request: IncomingMessage, response: ServerResponse) => void;

const send =
  (type: string | undefined, body: Buffer | string): Route =>
  (_request, response) => {
    response.writeHead(200, type === undefined ? {} : { "content-type": type });
    response.end(body);
  };

const redirect =
  (location: string | undefined, status = 302): Route =>
  (_request, response) => {
    response.writeHead(status, location === undefined ? {} : { location });
    response.end("moved");
  };

/** The routes: each path says what it serves. */
const ROUTES: Record<string, Route> = {
  "/pixel.png": send("image/png", PNG),
  "/pixel.gif": send("image/gif", GIF),
  "/pixel.jpg": send("image/jpg", JPEG),
  "/pixel.webp": send("image/webp", WEBP),
  "/octet": send("application/octet-stream", PNG),
  "/untyped": send(undefined, PNG),
  // A PNG served as a JPEG: both allowed, sent as what its bytes are.
  "/mislabelled": send("image/jpeg", PNG),
  "/page.html": send("text/html; charset=utf-8", "<html><img src=pixel.png></html>"),
  // Says PNG, sends a page.
  "/lying.png": send("image/png", "<html>not an image</html>"),
  "/empty.png": send("image/png", Buffer.alloc(0)),
  "/missing.png": (_request, response) => {
    response.writeHead(404, { "content-type": "text/plain" });
    response.end("no such image");
  },
  // Declares its size up front.
  "/declared-big.png": (_request, response) => {
    response.writeHead(200, { "content-type": "image/png", "content-length": String(4096) });
    response.write(PNG);
  },
  // No size given, and no end: a PNG that never stops.
  "/endless.png": (request, response) => {
    response.writeHead(200, { "content-type": "image/png" });
    response.write(PNG);
    const chunk = Buffer.alloc(16 * 1024);
    const more = () => {
      while (!response.destroyed && response.write(chunk));
      if (!response.destroyed) response.once("drain", more);
    };
    request.socket.on("close", () => response.destroy());
    more();
  },
  // Never answers.
  "/hang.png": () => undefined,
  // Answers, sends the first bytes, then nothing more.
  "/stall.png": (_request, response) => {
    response.writeHead(200, { "content-type": "image/png" });
    response.write(PNG.subarray(0, 8));
  },
  "/redirect": redirect("/pixel.png"),
  "/redirect-308": redirect("/pixel.png", 308),
  "/redirect-twice": redirect("/redirect"),
  "/loop": redirect("/loop"),
  "/to-file": redirect("file:///etc/passwd"),
  "/no-location": redirect(undefined),
};

/** The server: `url(path)` of a route; `closed(path)` counts connections of it that ended. */
export class ImageServer {
  private readonly closedBy = new Map<string, number>();
  private readonly requestedBy = new Map<string, number>();

  private constructor(
    private readonly server: Server,
    readonly origin: string,
  ) {}

  static async start(): Promise<ImageServer> {
    let self: ImageServer | undefined;
    const server = createServer((request, response) => {
      const path = (request.url ?? "/").split("?")[0] as string;
      self?.count(self.requestedBy, path);
      request.socket.once("close", () => self?.count(self.closedBy, path));
      const route = ROUTES[path];
      if (route) route(request, response);
      else {
        response.writeHead(404);
        response.end();
      }
    });
    const port = await listenOnLoopback(server);
    self = new ImageServer(server, `http://127.0.0.1:${port}`);
    return self;
  }

  url(path: string): string {
    return `${this.origin}${path}`;
  }

  requested(path: string): number {
    return this.requestedBy.get(path) ?? 0;
  }

  closed(path: string): number {
    return this.closedBy.get(path) ?? 0;
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }

  private count(map: Map<string, number>, path: string): void {
    map.set(path, (map.get(path) ?? 0) + 1);
  }
}
