/** Every scope a key can hold. */
export const SCOPES = [
  "lists:read", "lists:create", "lists:update", "lists:delete",
  "docs:read", "docs:create", "docs:update", "docs:delete",
  "calendar:read", "calendar:create", "calendar:update", "calendar:delete",
  "workflows:read", "workflows:run",
  "agents:read", "agents:run",
] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: unknown): value is Scope {
  return typeof value === "string" && (SCOPES as readonly string[]).includes(value);
}

/** The permission levels and the scopes each expands to. */
export const PERMISSION_LEVELS = {
  lists: { none: [], read: ["lists:read"], write: ["lists:read", "lists:create", "lists:update"], full: ["lists:read", "lists:create", "lists:update", "lists:delete"] },
  docs: { none: [], read: ["docs:read"], write: ["docs:read", "docs:create", "docs:update"], full: ["docs:read", "docs:create", "docs:update", "docs:delete"] },
  calendar: { none: [], read: ["calendar:read"], write: ["calendar:read", "calendar:create", "calendar:update"], full: ["calendar:read", "calendar:create", "calendar:update", "calendar:delete"] },
  workflows: { none: [], read: ["workflows:read"], run: ["workflows:read", "workflows:run"] },
  agents: { none: [], read: ["agents:read"], run: ["agents:read", "agents:run"] },
} as const satisfies Record<string, Record<string, readonly Scope[]>>;
export type PermissionResource = keyof typeof PERMISSION_LEVELS;
export type Permissions = { [R in PermissionResource]?: keyof (typeof PERMISSION_LEVELS)[R] };

/** Returns the scopes of a permissions object, or the names of its invalid entries. */
export function expandPermissions(permissions: Record<string, unknown>): { scopes: Scope[]; invalid: string[] } {
  const scopes = new Set<Scope>();
  const invalid: string[] = [];
  for (const [resource, level] of Object.entries(permissions)) {
    const levels = (PERMISSION_LEVELS as Record<string, Record<string, readonly Scope[]>>)[resource];
    const expanded = levels && typeof level === "string" && Object.hasOwn(levels, level) ? levels[level] : undefined;
    if (!expanded) invalid.push(resource);
    else for (const scope of expanded) scopes.add(scope);
  }
  return { scopes: [...scopes], invalid };
}

/** The account permissions of each member role. */
export const ROLES = ["owner", "admin", "member", "guest"] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  owner: SCOPES,
  admin: SCOPES,
  member: SCOPES,
  guest: SCOPES.filter((scope) => scope.endsWith(":read")),
};

/** Owners and admins see every team's resources; other roles only their own teams'. */
export function seesAllTeams(role: Role): boolean {
  return role === "owner" || role === "admin";
}
