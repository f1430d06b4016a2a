import { isConnectionFailure } from '../storage/connection-failure.js';
import { StorageError } from '../storage/errors.js';
import { ApiError } from './api-error.js';

/**
 * The one mapping of storage failures to API errors: a commit whose outcome is unknown, a lost or closed
 * database, and a driver's connection failure that escaped unwrapped. Anything else is not the storage's to
 * name (undefined): the caller maps it, or it is an internal error.
 */
export function storageApiError(error: unknown): ApiError | undefined {
  if (error instanceof StorageError) {
    switch (error.code) {
      case 'mutation_outcome_unknown':
        return new ApiError('mutation_outcome_unknown');
      case 'database_unavailable':
      case 'database_closed':
        return new ApiError('database_unavailable');
      case 'lock_timeout':
        return new ApiError('database_unavailable', error.message, { variant: 'lock_wait' });
      default:
        return undefined;
    }
  }
  return isConnectionFailure(error) ? new ApiError('database_unavailable') : undefined;
}
