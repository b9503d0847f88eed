import { env } from "../env";
import { MAX_JSON_BODY_BYTES, boundedBody } from "../http/request-body";

/**
 * The largest body a tRPC request may have: the REST JSON limit, or more when the roster import (its
 * files in base64, the one procedure that takes files) needs more for ROSTER_IMPORT_MAX_BYTES.
 */
export function trpcMaxBodyBytes(): number {
  const rosterFilesInBase64 = Math.ceil(env().ROSTER_IMPORT_MAX_BYTES / 3) * 4;
  return Math.max(MAX_JSON_BODY_BYTES, rosterFilesInBase64 + 64 * 1024);
}

/**
 * The request as tRPC's fetch adapter gets it: its body read through boundedBody, so a body past
 * trpcMaxBodyBytes() fails its read with the REST 413's sentence. tRPC reads the body when a procedure
 * asks for its input (after the caller is authenticated); the read's AppError reaches the procedure's
 * error mapping (server/trpc/init.ts), so the reply is tRPC's own error shape, PAYLOAD_TOO_LARGE, 413.
 */
export function boundedTrpcRequest(request: Request, maxBytes = trpcMaxBodyBytes()): Request {
  const body = boundedBody(request, maxBytes);
  if (!body) return request;
  return new Request(request.url, { method: request.method, headers: request.headers, body, signal: request.signal, duplex: "half" } as RequestInit);
}
