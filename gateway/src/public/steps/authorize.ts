import type { PublicOperation } from "@ws/shared";
import type { Credential } from "../../auth/authenticator";
import { assertScope } from "../../auth/permissions";

/** The operation's scope, held by the key (else 403 insufficient_permissions) and allowed to its creator's role (else 403 forbidden). */
export function authorize(credential: Credential, route: PublicOperation): void {
  assertScope(credential.keyScopes, credential.role, route.scope);
}
