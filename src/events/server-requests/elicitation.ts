// MCP servers asking the user: `mcpServer/elicitation/request`.
import type { JsonValue } from "../../protocol/generated/ts/serde_json/JsonValue.js";
import { isObject } from "../wire-values.js";
import { type ApprovalRequestBase, kindSpec } from "./spec.js";

/** An MCP server asks the user for input (a form, a URL to open, a verification). */
export interface ElicitationRequest extends ApprovalRequestBase {
  kind: "elicitation";
  server_name: string;
  mode: string;
  message: string | null;
  /** The JSON Schema of the form, for form modes. */
  requested_schema: JsonValue | null;
  url: string | null;
  /** The whole wire params, for modes this version does not break out. */
  params: Record<string, unknown>;
}

export type ElicitationDecision = "decline" | "cancel" | { accept: JsonValue; meta?: JsonValue };

export const elicitation = kindSpec<ElicitationRequest, ElicitationDecision>()({
  kind: "elicitation",
  accepts: '{ accept: content, meta? }, "decline", "cancel"',
  isDecision: (value): value is ElicitationDecision =>
    value === "cancel" || (isObject(value) && "accept" in value),
  methods: {
    "mcpServer/elicitation/request": {
      request: (params) => ({
        item_id: null,
        server_name: params.serverName ?? "",
        mode: params.mode ?? "form",
        message: "message" in params ? params.message : (params.description ?? null),
        requested_schema:
          "requestedSchema" in params ? (params.requestedSchema as JsonValue) : null,
        url: "url" in params ? params.url : null,
        params: { ...params },
      }),
      result: (decision) =>
        typeof decision === "string"
          ? { action: decision, content: null, _meta: null }
          : { action: "accept", content: decision.accept, _meta: decision.meta ?? null },
    },
  },
});
