/** The logging surface the FX worker needs; pino's Logger satisfies it. */
export interface FxLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}
