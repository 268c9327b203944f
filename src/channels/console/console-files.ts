// Serves the fleet console's page (`/fleet`, `/fleet.js`, `/fleet.css`): static files with the
// inbox's headers (never cached, the strict CSP); the page reads everything through `/v1/fleet/…`.
import type { IncomingMessage, ServerResponse } from "node:http";
import { type PageFiles, servePageFile } from "../inbox.js";
import { FLEET_CSS, FLEET_HTML } from "./console-page.js";
import { FLEET_JS } from "./console-script.js";

const FILES: PageFiles = {
  "/fleet": { type: "text/html; charset=utf-8", body: FLEET_HTML },
  "/fleet.js": { type: "text/javascript; charset=utf-8", body: FLEET_JS },
  "/fleet.css": { type: "text/css; charset=utf-8", body: FLEET_CSS },
};

/** Answers a GET of a console file; false for any other path. */
export function serveConsolePage(request: IncomingMessage, response: ServerResponse): boolean {
  return servePageFile(FILES, request, response);
}
