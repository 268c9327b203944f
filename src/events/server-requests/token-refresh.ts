// ChatGPT tokens the client manages: `account/chatgptAuthTokens/refresh`.
import { CodexHarnessError } from "../../errors.js";
import { isObject } from "../wire-values.js";
import { type ApprovalRequestBase, kindSpec } from "./spec.js";

/** codex needs fresh ChatGPT tokens (the client manages them). */
export interface TokenRefreshRequest extends ApprovalRequestBase {
  kind: "tokenRefresh";
  reason: string;
  previous_account_id: string | null;
}

export type TokenRefreshDecision =
  | "decline"
  | { accessToken: string; chatgptAccountId: string; chatgptPlanType?: string | null };

export const tokenRefresh = kindSpec<TokenRefreshRequest, TokenRefreshDecision>()({
  kind: "tokenRefresh",
  accepts: '{ accessToken, chatgptAccountId, chatgptPlanType? }, "decline"',
  isDecision: (value): value is TokenRefreshDecision =>
    isObject(value) &&
    typeof value.accessToken === "string" &&
    typeof value.chatgptAccountId === "string",
  methods: {
    "account/chatgptAuthTokens/refresh": {
      request: (params) => ({
        item_id: null,
        reason: params.reason ?? "",
        previous_account_id: params.previousAccountId ?? null,
      }),
      result: (decision) => {
        if (decision === "decline") {
          // There is no "no" in the response shape: the request fails, as codex expects without tokens.
          throw new CodexHarnessError(
            "token_refresh_declined",
            "The client has no ChatGPT tokens to give.",
          );
        }
        return {
          accessToken: decision.accessToken,
          chatgptAccountId: decision.chatgptAccountId,
          chatgptPlanType: decision.chatgptPlanType ?? null,
        };
      },
    },
  },
});
