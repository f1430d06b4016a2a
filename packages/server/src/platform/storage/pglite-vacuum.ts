import type { StorageLogger } from './engine.js';

export interface VacuumOptions {
  /** How long after a rolled-back write to wait before vacuuming (a burst of them is coalesced into one run). */
  delayMs: number;
  /** The longest one VACUUM statement may hold the database: it is interrupted then (and resumed next time). */
  maxMs: number;
  /** Every table is vacuumed (and analysed) this often; 0 turns the schedule off. */
  intervalMs: number;
}

export const DEFAULT_VACUUM: VacuumOptions = { delayMs: 1_000, maxMs: 10_000, intervalMs: 3_600_000 };

/** Runs one maintenance statement on the database, interrupting it after maxMs; resolves false then. */
export type MaintenanceRunner = (sql: string, maxMs: number) => Promise<boolean>;

const NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * Space reclamation for the embedded database, which has no autovacuum: the rows of a rolled-back write (an
 * INSERT ... SELECT stopped at its deadline writes hundreds of megabytes) stay on disk until a VACUUM marks
 * them free and truncates the empty end of the table. Tables touched by rolled-back writes are vacuumed a
 * moment after the request was answered (coalesced: one run for a burst), and every table on a schedule.
 */
export class PgliteVacuum {
  readonly #pending = new Set<string>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #schedule: ReturnType<typeof setInterval> | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(
    private readonly run: MaintenanceRunner,
    private readonly listTables: () => Promise<string[]>,
    private readonly options: VacuumOptions = DEFAULT_VACUUM,
    private readonly logger?: StorageLogger,
  ) {
    if (options.intervalMs > 0) {
      this.#schedule = setInterval(() => void this.#everything(), options.intervalMs);
      this.#schedule.unref();
    }
  }

  /** Tables (unqualified names in `public`) that a rolled-back transaction wrote to. */
  touched(tables: readonly string[]): void {
    if (this.#stopped) return;
    for (const table of tables) if (NAME.test(table)) this.#pending.add(`public.${table}`);
    if (this.#pending.size === 0 || this.#timer || this.#running) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#drain();
    }, this.options.delayMs);
    this.#timer.unref();
  }

  /** Resolves once nothing is pending or running (tests, close). */
  async idle(): Promise<void> {
    while (this.#running || this.#timer) {
      if (this.#timer) {
        clearTimeout(this.#timer);
        this.#timer = undefined;
        void this.#drain();
      }
      await this.#running;
    }
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    clearInterval(this.#schedule);
    this.#pending.clear();
  }

  #drain(): Promise<void> {
    if (this.#running) return this.#running;
    this.#running = (async () => {
      while (this.#pending.size > 0 && !this.#stopped) {
        const tables = [...this.#pending];
        this.#pending.clear();
        await this.#vacuum(`VACUUM ${tables.join(', ')}`);
        // The write-ahead log of the rolled-back rows stays until a checkpoint lets its segments be reused.
        await this.#vacuum('CHECKPOINT');
      }
    })().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #everything(): Promise<void> {
    if (this.#stopped || this.#running) return;
    try {
      const tables = await this.listTables();
      for (const table of tables) this.#pending.add(table);
    } catch (error) {
      this.logger?.warn({ err: { message: (error as Error).message } }, 'vacuum: could not list the tables');
      return;
    }
    await this.#drain();
  }

  /** One maintenance statement, bounded by maxMs; failures are logged, never thrown. */
  async #vacuum(sql: string): Promise<void> {
    const started = Date.now();
    try {
      const finished = await this.run(sql, this.options.maxMs);
      if (!finished) {
        this.logger?.warn({ maxMs: this.options.maxMs, sql }, 'maintenance interrupted at its time limit');
      } else {
        this.logger?.info({ ms: Date.now() - started, sql }, 'maintenance done');
      }
    } catch (error) {
      this.logger?.warn({ err: { message: (error as Error).message }, sql }, 'maintenance failed');
    }
  }
}
