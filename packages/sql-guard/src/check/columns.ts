import { columnsInScope, findRefname, formatColumns, resolvesBare } from './scope.js';
import { type Fields, single, stringValue } from './tree.js';
import type { Walker } from './walker.js';

/** A column reference anywhere an expression may be: it must resolve, or the statement is refused. */
export function columnRef(w: Walker, f: Fields): void {
  const parts = w.array(f.fields);
  const names: string[] = [];
  let star = false;
  parts.forEach((part, i) => {
    const entry = single(part);
    if (entry && entry[0] === 'A_Star' && i === parts.length - 1) {
      star = true;
      return;
    }
    const sval = stringValue(part);
    if (sval === undefined) w.fail('construct_not_allowed', 'The column reference holds an unexpected part.');
    names.push(sval);
  });
  if (parts.length > 2) {
    w.fail(
      'construct_not_allowed',
      `Column references of more than two parts are not allowed (${names.join('.')}${star ? '.*' : ''}).`,
      'write alias.column',
    );
  }
  const text = `${names.join('.')}${star ? `${names.length ? '.' : ''}*` : ''}`;
  if (star) {
    if (f !== w.starTarget) {
      w.fail(
        'column_not_allowed',
        `${text} is a whole-row value here; only the select list and RETURNING may expand * into columns.`,
        `name the columns: ${formatColumns(columnsInScope(w.level))}`,
      );
    }
    if (names.length === 1 && !findRefname(w.level, names[0]!)) {
      w.fail(
        'column_not_allowed',
        `${text} names no relation in scope.`,
        `columns in scope: ${formatColumns(columnsInScope(w.level))}`,
      );
    }
    return;
  }
  if (names.length === 1) {
    const name = names[0]!;
    if (resolvesBare(w.level, name)) return;
    const whole = findRefname(w.level, name);
    w.fail(
      'column_not_allowed',
      whole
        ? `${name} names a whole row of ${name}, not a column; whole-row references are not allowed.`
        : `Column ${name} does not exist in the relations in scope.`,
      `columns in scope: ${formatColumns(columnsInScope(w.level))}`,
    );
  }
  const [qualifier, column] = names as [string, string];
  const owner = findRefname(w.level, qualifier);
  if (!owner) {
    w.fail(
      'column_not_allowed',
      `${text}: no relation named ${qualifier} is in scope.`,
      `columns in scope: ${formatColumns(columnsInScope(w.level))}`,
    );
  }
  if (!owner.columns.includes(column)) {
    w.fail(
      'column_not_allowed',
      `${text} does not resolve: ${qualifier} has no column ${column} (PostgreSQL would read it as the function call ${column}(${qualifier})).`,
      `columns of ${qualifier}: ${formatColumns(owner.columns)}`,
    );
  }
}
