import { z } from 'zod';
import { isIanaTimeZone, isIsoCurrency } from './currency.js';

export const WORKSPACE_NAME_MAX_LENGTH = 100;

export const RoleSchema = z.enum(['owner', 'member']);
export type Role = z.infer<typeof RoleSchema>;

export const WorkspaceSchema = z.object({ workspaceId: z.string(), name: z.string(), role: RoleSchema });
export type Workspace = z.infer<typeof WorkspaceSchema>;

export const WorkspaceListItemSchema = WorkspaceSchema.extend({ selected: z.boolean() });
export type WorkspaceListItem = z.infer<typeof WorkspaceListItemSchema>;

export const WorkspacesDataSchema = z.object({ workspaces: z.array(WorkspaceListItemSchema) });
export type WorkspacesData = z.infer<typeof WorkspacesDataSchema>;

export const WorkspaceNameSchema = z
  .string()
  .min(1)
  .max(WORKSPACE_NAME_MAX_LENGTH)
  .regex(/\S/, 'must not be blank');

const CURRENCY_MESSAGE = 'must be an ISO 4217 currency code in upper case, e.g. EUR, USD or JPY';
const TIME_ZONE_MESSAGE = 'must be an IANA time zone name, e.g. Europe/Berlin, America/New_York or UTC';

/** An ISO 4217 code (the pattern shows in the OpenAPI document; the refinement checks the code is current). */
export const CurrencyCodeSchema = z
  .string()
  .regex(/^[A-Z]{3}$/, CURRENCY_MESSAGE)
  .refine(isIsoCurrency, { message: CURRENCY_MESSAGE });
export const TimeZoneNameSchema = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/, TIME_ZONE_MESSAGE)
  .refine(isIanaTimeZone, { message: TIME_ZONE_MESSAGE });

/** POST /workspaces: a name, and the settings a new workspace starts with (unknown fields are refused). */
export const CreateWorkspaceBodySchema = z
  .object({
    name: WorkspaceNameSchema,
    currency: CurrencyCodeSchema.optional().describe('reporting currency, ISO 4217 (default USD)'),
    timeZone: TimeZoneNameSchema.optional().describe(
      "IANA time zone (default UTC): what 'today' is, and the zone SQL runs in",
    ),
  })
  .strict();
export type CreateWorkspaceBody = z.infer<typeof CreateWorkspaceBodySchema>;

/** PATCH /workspaces/{workspaceId}: the new name (the same rules as a new workspace's). */
export const RenameWorkspaceBodySchema = z.object({ name: WorkspaceNameSchema });
export type RenameWorkspaceBody = z.infer<typeof RenameWorkspaceBodySchema>;

export const WorkspaceDataSchema = z.object({ workspace: WorkspaceSchema });
export type WorkspaceData = z.infer<typeof WorkspaceDataSchema>;

/** A workspace's settings as POST /workspaces answers them (workspace_settings). */
export const WorkspaceSettingsSchema = z.object({
  currency: z.string().describe('workspace_settings.reporting_currency'),
  timeZone: z.string().describe('workspace_settings.timezone'),
});
export type WorkspaceSettings = z.infer<typeof WorkspaceSettingsSchema>;

/** The settings POST /workspaces filled with their defaults because the body left them out. */
export const DefaultedSettingSchema = z.enum(['currency', 'timeZone']);

export const CreatedWorkspaceDataSchema = WorkspaceDataSchema.extend({
  settings: WorkspaceSettingsSchema,
  defaulted: z
    .array(DefaultedSettingSchema)
    .optional()
    .describe('the settings left out and defaulted (USD, UTC): confirm them with the user'),
});
export type CreatedWorkspaceData = z.infer<typeof CreatedWorkspaceDataSchema>;

export const WorkspaceParamsSchema = z.object({ workspaceId: z.string() });

export const SelectWorkspaceDataSchema = z.object({
  workspace: WorkspaceSchema,
  sqlRequest: z.object({ header: z.literal('X-Workspace-Id'), workspaceId: z.string() }),
});
export type SelectWorkspaceData = z.infer<typeof SelectWorkspaceDataSchema>;

/** `active`: a member who accepted (or created the workspace); `invited`: an invitation not yet accepted. */
export const MemberStatusSchema = z.enum(['active', 'invited']);
export type MemberStatus = z.infer<typeof MemberStatusSchema>;

export const MemberSchema = z.object({
  userId: z.string(),
  email: z.string(),
  role: RoleSchema,
  status: MemberStatusSchema.describe('an invited address has no access until it accepts'),
  addedAt: z.string().describe('when the member was added, or for an invitation when it was sent'),
  activeKeys: z
    .number()
    .int()
    .optional()
    .describe("shown to owners for active members: the member's live keys, all revoked if they are removed"),
});
export type Member = z.infer<typeof MemberSchema>;

export const MembersDataSchema = z.object({ members: z.array(MemberSchema) });
export type MembersData = z.infer<typeof MembersDataSchema>;

export const AddMemberBodySchema = z.object({ email: z.email().max(254) });
export type AddMemberBody = z.infer<typeof AddMemberBodySchema>;

export const MemberDataSchema = z.object({ member: MemberSchema });
export type MemberData = z.infer<typeof MemberDataSchema>;

export const MemberParamsSchema = z.object({ workspaceId: z.string(), userId: z.string() });

/** A pending invitation of the caller: it grants nothing until accepted. */
export const InvitationSchema = z.object({
  workspaceId: z.string(),
  workspaceName: z.string(),
  invitedBy: z.object({ email: z.string() }),
  invitedAt: z.string(),
});
export type Invitation = z.infer<typeof InvitationSchema>;

export const InvitationsDataSchema = z.object({ invitations: z.array(InvitationSchema) });
export type InvitationsData = z.infer<typeof InvitationsDataSchema>;

export const InvitationParamsSchema = z.object({ workspaceId: z.string() });
