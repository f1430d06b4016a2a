import { z } from 'zod';

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

export const CreateWorkspaceBodySchema = z.object({ name: WorkspaceNameSchema });
export type CreateWorkspaceBody = z.infer<typeof CreateWorkspaceBodySchema>;

/** PATCH /workspaces/{workspaceId}: the new name (the same rules as a new workspace's). */
export const RenameWorkspaceBodySchema = CreateWorkspaceBodySchema;
export type RenameWorkspaceBody = CreateWorkspaceBody;

export const WorkspaceDataSchema = z.object({ workspace: WorkspaceSchema });
export type WorkspaceData = z.infer<typeof WorkspaceDataSchema>;

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
