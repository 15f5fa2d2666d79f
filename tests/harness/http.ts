import { assertConforms, conformanceTo, isPublicGateway } from "./openapi-conformance";

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/**
 * Calls the API with a key and parses whatever comes back. Every response of the
 * public gateway is checked against the OpenAPI document: one it does not
 * describe throws (tests/harness/openapi-conformance.ts).
 */
export function apiClient(baseUrl: string, key?: string) {
  return async function call<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    const answer = await send<T>(baseUrl, key, method, path, body, headers);
    if (await isPublicGateway(baseUrl)) {
      assertConforms({ method, path, status: answer.status, headers: answer.headers, text: answer.text });
    }
    return answer;
  };
}

async function send<T>(baseUrl: string, key: string | undefined, method: string, path: string, body: unknown, headers: Record<string, string>): Promise<ApiResponse<T>> {
  const response = await fetch(baseUrl + path, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  return readResponse<T>(response);
}

const managementDocuments = new Map<string, Promise<ReturnType<typeof conformanceTo>>>();

/**
 * Calls the management API with the admin token, and checks every answer
 * against the management document that same gateway serves: one it does not
 * describe throws.
 */
export function managementClient(adminUrl: string, adminToken?: string) {
  let conformance = managementDocuments.get(adminUrl);
  if (!conformance) {
    conformance = fetch(`${adminUrl}/admin/v1/openapi.json`).then(async (response) => {
      if (response.status !== 200) throw new Error(`${adminUrl}/admin/v1/openapi.json answered ${response.status}`);
      return conformanceTo(await response.json(), `https://workspace-api.test/admin/${managementDocuments.size}/openapi.json`);
    });
    managementDocuments.set(adminUrl, conformance);
  }
  const checker = conformance;
  return async function call<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    const answer = await send<T>(adminUrl, adminToken, method, path, body, headers);
    (await checker).assertConforms({ method, path, status: answer.status, headers: answer.headers, text: answer.text });
    return answer;
  };
}

export type Call = ReturnType<typeof apiClient>;

/** A fetch() answer read as an ApiResponse, for tests that must call fetch() themselves. */
export async function readResponse<T = any>(response: Response): Promise<ApiResponse<T>> {
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/** Every 4xx/5xx must be the error object. */
export function isErrorObject(body: unknown): boolean {
  if (!body || typeof body !== "object") return false;
  const error = (body as { error?: unknown }).error;
  if (!error || typeof error !== "object") return false;
  const { code, message, details } = error as Record<string, unknown>;
  return typeof code === "string" && typeof message === "string" && (details === undefined || (typeof details === "object" && details !== null));
}
