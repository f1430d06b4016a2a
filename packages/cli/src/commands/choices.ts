import { type Argument, InvalidArgumentError, type Option } from 'commander';

/**
 * commander's `.choices()` for values a person may also write another way: help and completion list
 * `values`, a value `read` does not know is commander's usage error (exit 2, naming the allowed choices), and
 * the action gets what `read` made of it. The default reads any case (`expense api get /me`, `report Trend`).
 */
export function choices<T extends Argument | Option>(
  target: T,
  values: readonly string[],
  read: (given: string) => string | undefined = (given) =>
    values.find((v) => v.toLowerCase() === given.toLowerCase()),
): T {
  target.choices(values);
  target.argParser((given: string) => {
    const value = read(given);
    if (value === undefined) throw new InvalidArgumentError(`Allowed choices are ${values.join(', ')}.`);
    return value;
  });
  return target;
}
