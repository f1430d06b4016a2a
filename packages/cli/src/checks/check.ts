/**
 * A few hand-written shape checks, for what the CLI reads on every call (its configuration, its credentials
 * file, the answer envelope and the SQL result): loading zod and the wire's schemas costs more CPU than a whole
 * `expense query` otherwise spends, so the hot paths check with these and the other routes keep the wire's zod
 * schemas (loaded when such a route is called). Each check behaves as the zod schema it stands for: objects
 * keep their known keys only, optional keys may be absent, defaults fill absent keys; the tests compare them.
 */

/** What a check throws for a value of the wrong shape (caught by `validator`). */
class Invalid extends Error {
  constructor() {
    super('the value is not of the expected shape');
  }
}

/** Returns the value in the shape it checks (a copy for objects), or throws `Invalid`. */
export type Check<T> = (value: unknown) => T;

/** The part of a zod schema the HTTP client uses: zod schemas and `validator(check)` both are one. */
export interface Validator<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false };
}

export function validator<T>(check: Check<T>): Validator<T> {
  return {
    safeParse(value) {
      try {
        return { success: true, data: check(value) };
      } catch (error) {
        if (error instanceof Invalid) return { success: false };
        throw error;
      }
    },
  };
}

const fail = (): never => {
  throw new Invalid();
};

/** A validator (a zod schema, say) as a check, for a part of a larger hand-written shape. */
export function fromValidator<T>(v: Validator<T>): Check<T> {
  return (value) => {
    const parsed = v.safeParse(value);
    return parsed.success ? parsed.data : fail();
  };
}

export const string: Check<string> = (v) => (typeof v === 'string' ? v : fail());
export const boolean: Check<boolean> = (v) => (typeof v === 'boolean' ? v : fail());
/** zod's `z.number().int()`: a finite integer within the safe range. */
export const int: Check<number> = (v) => (typeof v === 'number' && Number.isSafeInteger(v) ? v : fail());
export const unknown: Check<unknown> = (v) => v;

export function literal<const L extends string | number | boolean>(value: L): Check<L> {
  return (v) => (v === value ? value : fail());
}

export function oneOf<const L extends string>(values: readonly L[]): Check<L> {
  return (v) => (values.includes(v as L) ? (v as L) : fail());
}

export function array<T>(item: Check<T>): Check<T[]> {
  return (v) => (Array.isArray(v) ? v.map((x) => item(x)) : fail());
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** `z.record(z.string(), value)`; with `unknown` values the object itself is returned. */
export function record<T>(value: Check<T>): Check<Record<string, T>> {
  return (v) => {
    if (!isPlainObject(v)) return fail();
    if (value === unknown) return v as Record<string, T>;
    const out: Record<string, T> = {};
    for (const [k, x] of Object.entries(v)) out[k] = value(x);
    return out;
  };
}

/** Marks an object key as optional (absent or undefined); `withDefault` fills an absent key instead. */
interface Optional<T> {
  readonly optional: true;
  readonly check: Check<T>;
  readonly fallback?: () => T;
}

export function optional<T>(check: Check<T>): Optional<T> {
  return { optional: true, check };
}

export function withDefault<T>(check: Check<T>, fallback: () => T): Optional<T> & { fallback: () => T } {
  return { optional: true, check, fallback };
}

type Field = Check<unknown> | Optional<unknown>;
type Shape = Record<string, Field>;
type FieldType<F> = F extends Optional<infer T> ? T : F extends Check<infer T> ? T : never;
type OptionalKeys<S extends Shape> = {
  [K in keyof S]: S[K] extends { fallback: () => unknown }
    ? never
    : S[K] extends Optional<unknown>
      ? K
      : never;
}[keyof S];
export type ObjectOf<S extends Shape> = {
  [K in Exclude<keyof S, OptionalKeys<S>>]: FieldType<S[K]>;
} & { [K in OptionalKeys<S>]?: FieldType<S[K]> };

/** `z.object(shape)`: the known keys, checked, in a new object (unknown keys are dropped, as zod does). */
export function object<S extends Shape>(shape: S): Check<{ [K in keyof ObjectOf<S>]: ObjectOf<S>[K] }> {
  const entries = Object.entries(shape);
  return (v) => {
    if (!isPlainObject(v)) return fail();
    const out: Record<string, unknown> = {};
    for (const [key, field] of entries) {
      const x = v[key];
      if (typeof field === 'function')
        out[key] = key in v ? field(x) : fail(); // required, even `unknown`
      else if (x !== undefined) out[key] = field.check(x);
      else if (field.fallback) out[key] = field.fallback();
      else if (key in v) out[key] = undefined;
    }
    return out as never;
  };
}
