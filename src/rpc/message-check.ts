// What a JSON-RPC peer asks of a check of incoming messages (the app-server client's `validate`).
/**
 * Checks incoming messages (e.g. against a schema). Each returns an error to refuse the message:
 * a refused notification is reported to `onError` listeners and dispatched to nobody, a refused
 * request is answered with a JSON-RPC error (its handler never runs), a refused result rejects its
 * request with that error. `undefined` lets the message through.
 */
export interface MessageCheck {
  notification(method: string, params: unknown): Error | undefined;
  request(method: string, params: unknown): Error | undefined;
  result(method: string, result: unknown): Error | undefined;
}
