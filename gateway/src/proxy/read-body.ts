import { ApiError } from "@ws/shared";

function tooLarge(limit: number): ApiError {
  return new ApiError("payload_too_large", `The request body exceeds the limit of ${limit} bytes for this operation.`, {
    details: { limit_bytes: limit },
  });
}

/**
 * Reads the body up to the route's limit: a declared length over it is refused
 * before reading, a chunked body as soon as it passes it.
 */
export async function readBodyWithin(request: Request, limit: number): Promise<Uint8Array | null> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
  if (!request.body) return null;
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  if (size === 0) return null;
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
