import { MemberSchema, RoleSchema } from '@expense/wire';
import { z } from 'zod';

/*
 * Members and invitations as http-api.md describes them (membership needs the invitee's consent). The CLI
 * reads them leniently: `status` is optional so that a server without invitations still lists its members.
 */
export const MemberViewSchema = MemberSchema.extend({
  role: RoleSchema,
  status: z.enum(['active', 'invited']).optional(),
});
export type MemberView = z.infer<typeof MemberViewSchema>;

export const MembersViewSchema = z.object({ members: z.array(MemberViewSchema) });
export type MembersView = z.infer<typeof MembersViewSchema>;

export const MemberCreatedSchema = z.object({ member: MemberViewSchema });
export type MemberCreated = z.infer<typeof MemberCreatedSchema>;

export const InvitationSchema = z.object({
  workspaceId: z.string(),
  workspaceName: z.string(),
  invitedBy: z.object({ email: z.string() }),
  invitedAt: z.string(),
});
export type Invitation = z.infer<typeof InvitationSchema>;

export const InvitationsDataSchema = z.object({ invitations: z.array(InvitationSchema) });
export type InvitationsData = z.infer<typeof InvitationsDataSchema>;
