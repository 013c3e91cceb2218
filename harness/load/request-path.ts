/**
 * The path a request was sent to: the router base URL's path (`/v1/`, or `/` for a bare host) with
 * the request's own API path (`/chat/completions`, `/responses`, `/messages`, `/embeddings`) under
 * it. An error answer is judged by this path's API (see `errorShapeOf`), so it must be the
 * request's own, never the base alone or chat completions for every API.
 */
export function requestPath(basePath: string, apiPath: string): string {
  return basePath.replace(/\/+$/, '') + apiPath;
}
