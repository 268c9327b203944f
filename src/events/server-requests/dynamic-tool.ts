// Tools the client declared (`dynamicTools`), called by the agent: `item/tool/call`.
import type { JsonValue } from "../../protocol/generated/ts/serde_json/JsonValue.js";
import type { DynamicToolCallOutputContentItem } from "../../protocol/generated/ts/v2/DynamicToolCallOutputContentItem.js";
import { isObject } from "../wire-values.js";
import { type ApprovalRequestBase, kindSpec } from "./spec.js";

/** The agent calls a tool the client declared (`dynamicTools`). */
export interface DynamicToolRequest extends ApprovalRequestBase {
  kind: "dynamicTool";
  call_id: string;
  namespace: string | null;
  tool: string;
  arguments: JsonValue;
}

/** A dynamic tool's result: text, or content items; `success` defaults to true. */
export type DynamicToolDecision =
  | "decline"
  | { output: string | DynamicToolCallOutputContentItem[]; success?: boolean };

export const dynamicTool = kindSpec<DynamicToolRequest, DynamicToolDecision>()({
  kind: "dynamicTool",
  accepts: '{ output, success? }, "decline"',
  isDecision: (value): value is DynamicToolDecision =>
    isObject(value) && (typeof value.output === "string" || Array.isArray(value.output)),
  methods: {
    "item/tool/call": {
      request: (params) => ({
        item_id: params.callId ?? null,
        call_id: params.callId ?? "",
        namespace: params.namespace ?? null,
        tool: params.tool ?? "",
        arguments: params.arguments ?? null,
      }),
      result: (decision) => {
        if (decision === "decline") {
          return {
            contentItems: [{ type: "inputText", text: "The client declined to run this tool." }],
            success: false,
          };
        }
        const contentItems =
          typeof decision.output === "string"
            ? [{ type: "inputText" as const, text: decision.output }]
            : decision.output;
        return { contentItems, success: decision.success ?? true };
      },
    },
  },
});
