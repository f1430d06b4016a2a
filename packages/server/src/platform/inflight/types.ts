/** Whose SQL request it is: the key (connection) and its user, each with a limit of its own. */
export interface InflightSubject {
  connectionId: string;
  userId: string;
}

export interface InflightLimits {
  perKey: number;
  perUser: number;
}

/** Which limit refused a request, and how many the subject already had in flight there. */
export interface InflightRefusal {
  scope: 'key' | 'user';
  limit: number;
}

/** A place in flight; release is idempotent and never throws. */
export interface Lease {
  release(): Promise<void>;
}

/**
 * Counts SQL requests in flight per key and per user. `acquire` resolves with a lease, or with the refusal
 * when the key or the user is already at its maximum. `ttlMs` bounds a lease whose process died without
 * releasing it; a live process renews its leases and always releases them.
 */
export interface InflightCounter {
  acquire(subject: InflightSubject, ttlMs: number): Promise<Lease | InflightRefusal>;
  close(): Promise<void>;
}
