import { CHANGE_GROUP_HEADER, CHANGE_LABEL_HEADER, MAX_CHANGE_LABEL } from '@expense/wire';
import { z } from 'zod';
import { ApiError } from '../../platform/http/api-error.js';
import type { ChangeGroup } from '../../platform/storage/database.js';
import { isUuid } from '../workspaces/store.js';

/** The request headers that put a write into a change group (migration 0042), for the routes' schemas. */
export const changeGroupHeaders = {
  [CHANGE_GROUP_HEADER.toLowerCase()]: z
    .string()
    .optional()
    .describe(
      'A UUID the client makes: every committed write (and revert) sending the same one joins one entry of the history.',
    ),
  [CHANGE_LABEL_HEADER.toLowerCase()]: z
    .string()
    .optional()
    .describe(
      `The group's label, percent-encoded UTF-8 (at most ${MAX_CHANGE_LABEL} characters decoded), e.g. import%20bank.csv.`,
    ),
};

const invalid = (message: string, path: string) =>
  new ApiError('invalid_request', message, { details: { issues: [{ path, message }] } });

/** The change group a request names, or undefined; 400 invalid_request for a malformed id or label. */
export function changeGroupOf(
  headers: Record<string, string | string[] | undefined>,
): ChangeGroup | undefined {
  const id = headers[CHANGE_GROUP_HEADER.toLowerCase()];
  const rawLabel = headers[CHANGE_LABEL_HEADER.toLowerCase()];
  if (id === undefined) {
    if (rawLabel !== undefined)
      throw invalid(`${CHANGE_LABEL_HEADER} needs ${CHANGE_GROUP_HEADER} (the group it labels).`, 'headers');
    return undefined;
  }
  if (typeof id !== 'string' || !isUuid(id))
    throw invalid(`${CHANGE_GROUP_HEADER} must be a UUID.`, `headers.${CHANGE_GROUP_HEADER}`);
  let label = '';
  if (typeof rawLabel === 'string') {
    try {
      label = decodeURIComponent(rawLabel);
    } catch {
      throw invalid(
        `${CHANGE_LABEL_HEADER} must be percent-encoded UTF-8.`,
        `headers.${CHANGE_LABEL_HEADER}`,
      );
    }
  }
  if ([...label].length > MAX_CHANGE_LABEL || label.includes('\0'))
    throw invalid(
      `${CHANGE_LABEL_HEADER} must be at most ${MAX_CHANGE_LABEL} characters, without NUL.`,
      `headers.${CHANGE_LABEL_HEADER}`,
    );
  return { id: id.toLowerCase(), label };
}
