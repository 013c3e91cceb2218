import type { InboundCodec } from './api-codec.js';
import { errorResponse } from '../engine/responses.js';
import { depthOver, MAX_DEPTH } from '../engine/validate-request.js';
import { decodeResponsesRequest, ResponsesInvalid } from './responses-request.js';
import { encodeResponse } from './responses-response.js';
import { responsesStreamEncoder } from './responses-stream.js';
import { reencodeStream, withBody } from './reshape.js';

/**
 * The OpenAI Responses API (`POST /v1/responses`): errors are OpenAI-shaped as the chat API's
 * are; answers become `response` objects and streams typed events.
 */
export const responsesCodec: InboundCodec = {
  name: 'OpenAI Responses',
  shutdownFrame: `event: error\ndata: ${JSON.stringify({ type: 'error', code: 'router_shutdown', message: 'The router is shutting down.', param: null })}\n\n`,
  streamEnded: /event: (response\.completed|response\.incomplete|response\.failed|error)\n[^\n]*\n\n$/,
  decode(body, items) {
    if (depthOver(body, MAX_DEPTH)) {
      const message = `Invalid request body: nested deeper than ${MAX_DEPTH} levels.`;
      return { ok: false, reply: errorResponse(400, null, 'invalid_request_error', message, []) };
    }
    try {
      return { ok: true, req: decodeResponsesRequest(body, items?.recall) };
    } catch (error) {
      if (!(error instanceof ResponsesInvalid)) throw error;
      return {
        ok: false,
        reply: errorResponse(error.status, null, 'invalid_request_error', error.message, [], {}, error.param),
      };
    }
  },
  error(status, type, code, message, headers) {
    return errorResponse(status, code, type, message, [], headers);
  },
  encode(result, requestedModel, items) {
    const remember = items?.remember;
    if (result.kind === 'stream') return reencodeStream(result, responsesStreamEncoder(requestedModel, remember));
    if (result.status < 400) return withBody(result, encodeResponse(result.body, requestedModel, remember));
    return result;
  },
};
