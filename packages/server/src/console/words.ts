/**
 * The sign-in pages' hints for a person: the catalogue's hints are written for whoever reads the HTTP answer,
 * often an agent ("Ask the user to check the 8-digit code…"). Codes not listed keep the catalogue's hint.
 */
const SIGN_IN_HINTS: Readonly<Record<string, string>> = {
  invalid_email: 'Check the address and type it again.',
  invalid_code: 'Check the 8-digit code in the e-mail and type it again.',
};

export function signInHint(code: string, hint: string | undefined): string | undefined {
  // The void variant ("Too many wrong codes…") is already written for a person.
  if (code === 'invalid_code' && hint?.startsWith('Too many')) return hint;
  return SIGN_IN_HINTS[code] ?? hint;
}
