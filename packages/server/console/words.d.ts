// The types of words.js, which another change rewrites now: this file stands in for it in the type check
// (tsconfig.json) until that change is merged; then delete this file and let words.js be checked itself.
import type { ApiError } from './types/console';

/** The hint to show a person for an API error. */
export function personHint(error: ApiError | null | undefined): string | undefined;
/** An API text in a person's words. */
export function personText<T extends string | null | undefined>(text: T): T;
