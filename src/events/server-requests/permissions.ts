// Permission requests: `item/permissions/requestApproval`.
import type { AdditionalFileSystemPermissions } from "../../protocol/generated/ts/v2/AdditionalFileSystemPermissions.js";
import type { AdditionalNetworkPermissions } from "../../protocol/generated/ts/v2/AdditionalNetworkPermissions.js";
import { isObject } from "../wire-values.js";
import { type ApprovalRequestBase, kindSpec } from "./spec.js";

/** codex asks for more sandbox permissions. */
export interface PermissionsRequest extends ApprovalRequestBase {
  kind: "permissions";
  cwd: string | null;
  reason: string | null;
  permissions: {
    network: AdditionalNetworkPermissions | null;
    file_system: AdditionalFileSystemPermissions | null;
  };
}

/** Grant a subset of the requested permissions, for this turn or the session. */
export type PermissionsDecision =
  | "decline"
  | {
      grant: {
        network?: AdditionalNetworkPermissions;
        fileSystem?: AdditionalFileSystemPermissions;
      };
      scope: "turn" | "session";
    };

export const permissions = kindSpec<PermissionsRequest, PermissionsDecision>()({
  kind: "permissions",
  accepts: '{ grant, scope: "turn" | "session" }, "decline"',
  isDecision: (value): value is PermissionsDecision =>
    isObject(value) &&
    isObject(value.grant) &&
    (value.scope === "turn" || value.scope === "session"),
  methods: {
    "item/permissions/requestApproval": {
      request: (params) => ({
        item_id: params.itemId,
        cwd: params.cwd ?? null,
        reason: params.reason ?? null,
        permissions: {
          network: params.permissions?.network ?? null,
          file_system: params.permissions?.fileSystem ?? null,
        },
      }),
      result: (decision) =>
        decision === "decline"
          ? { permissions: {}, scope: "turn" }
          : { permissions: decision.grant, scope: decision.scope },
    },
  },
});
