// The few parts of `oidc-provider` (panva's, a test-only dependency without types of its own) that
// the tests' local OpenID provider uses.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  /** An interaction the provider waits on: a login or a consent. */
  export interface Interaction {
    uid: string;
    prompt: {
      name: string;
      details: { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
    };
    params: Record<string, unknown> & { client_id: string };
    session?: { accountId?: string };
    grantId?: string;
  }

  /** A grant of scopes and claims to a client, for an account. */
  export interface Grant {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    save(): Promise<string>;
  }

  export class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    interactionDetails(request: IncomingMessage, response: ServerResponse): Promise<Interaction>;
    interactionFinished(
      request: IncomingMessage,
      response: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    Grant: new (init: {
      accountId: string;
      clientId: string;
    }) => Grant;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }

  export default Provider;
}
