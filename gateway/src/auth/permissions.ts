import { ApiError, ROLE_SCOPES, type Role, type Scope } from "@ws/shared";

/** What a request may do is the key's scopes within its creator's role. */
export function effectiveScopes(keyScopes: readonly Scope[], role: Role): Scope[] {
  const allowed = ROLE_SCOPES[role];
  return keyScopes.filter((scope) => allowed.includes(scope));
}

/**
 * A scope the key lacks is insufficient_permissions; a scope
 * the key has but its creator's role does not is forbidden.
 */
export function assertScope(keyScopes: readonly Scope[], role: Role, required: Scope): void {
  if (!keyScopes.includes(required)) {
    throw new ApiError("insufficient_permissions", `This API key lacks the ${required} scope.`, { details: { required_scope: required } });
  }
  if (!ROLE_SCOPES[role].includes(required)) {
    throw new ApiError("forbidden", `The member who created this API key is not allowed ${required}.`, { details: { required_scope: required } });
  }
}
