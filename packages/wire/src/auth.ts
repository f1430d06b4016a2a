import { z } from 'zod';

export const OTP_CODE_LENGTH = 8;
/** A recognisable prefix so leaked keys can be found by secret scanners. */
export const API_KEY_PREFIX = 'exp_live_';

export const EmailSchema = z.email().max(254).describe('The e-mail address to send the sign-in code to');

export const SendCodeBodySchema = z.object({ email: EmailSchema });
export type SendCodeBody = z.infer<typeof SendCodeBodySchema>;

export const SendCodeDataSchema = z.object({
  otpSessionToken: z.string(),
  expiresAt: z.string().describe('ISO 8601'),
  codeLength: z.literal(OTP_CODE_LENGTH),
});
export type SendCodeData = z.infer<typeof SendCodeDataSchema>;

export const LabelSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/\S/, 'must not be blank')
  .describe('A name for this key, e.g. the machine or agent that holds it');

export const VerifyCodeBodySchema = z.object({
  code: z
    .string()
    .regex(/^[0-9]{8}$/, 'must be 8 digits')
    .describe('The 8-digit code from the e-mail'),
  otpSessionToken: z.string().min(1).max(200),
  label: LabelSchema,
  kind: z
    .enum(['agent', 'cli'])
    .optional()
    .describe(
      'What the key is for, as listed by GET /keys: "cli" for `expense login`, else "agent" (the default)',
    ),
});
export type VerifyCodeBody = z.infer<typeof VerifyCodeBodySchema>;

export const UserSchema = z.object({ userId: z.string(), email: z.string() });
export type User = z.infer<typeof UserSchema>;

export const VerifyCodeDataSchema = z.object({
  apiKey: z.string(),
  connection: z.object({ connectionId: z.string(), label: z.string(), createdAt: z.string() }),
  user: UserSchema,
});
export type VerifyCodeData = z.infer<typeof VerifyCodeDataSchema>;
