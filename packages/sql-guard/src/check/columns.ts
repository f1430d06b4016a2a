import { columnCopy } from './expansion.js';
import { columnsInScope, findRefname, formatColumns, resolveBare } from './scope.js';
import { type Fields, single, stringValue } from './tree.js';
import type { Walker } from './walker.js';

/** A column reference anywhere an expression may be: it must resolve, or the statement is refused. */
export function columnRef(w: Walker, f: Fields): void {
  const parts = w.array(f.fields);
  const names: string[] = [];
  let star = false;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    const sval = stringValue(part);
    if (sval !== undefined) {
      names.push(sval);
      continue;
    }
    if (i === parts.length - 1 && single(part)?.[0] === 'A_Star') star = true;
    else w.fail('construct_not_allowed', 'The column reference holds an unexpected part.');
  }
  if (parts.length > 2) {
    w.fail(
      'construct_not_allowed',
      `Column references of more than two parts are not allowed (${refText(names, star)}).`,
      'write alias.column',
    );
  }
  if (star) {
    if (f !== w.starTarget) {
      w.fail(
        'column_not_allowed',
        `${refText(names, star)} is a whole-row value here; only the select list and RETURNING may expand * into columns.`,
        `name the columns: ${formatColumns(columnsInScope(w.level))}`,
      );
    }
    if (names.length === 1 && !findRefname(w.level, names[0]!)) {
      w.fail(
        'column_not_allowed',
        `${refText(names, star)} names no relation in scope.`,
        `columns in scope: ${formatColumns(columnsInScope(w.level))}`,
      );
    }
    return;
  }
  if (names.length === 1) {
    const name = names[0]!;
    const found = resolveBare(w.level, name);
    if (found) {
      if (found.sizes) columnCopy(w, found, found.columns.indexOf(name));
      return;
    }
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
      `${refText(names, star)}: no relation named ${qualifier} is in scope.`,
      `columns in scope: ${formatColumns(columnsInScope(w.level))}`,
    );
  }
  const index = owner.columns.indexOf(column);
  if (index === -1) {
    w.fail(
      'column_not_allowed',
      `${refText(names, star)} does not resolve: ${qualifier} has no column ${column} (PostgreSQL would read it as the function call ${column}(${qualifier})).`,
      `columns of ${qualifier}: ${formatColumns(owner.columns)}`,
    );
  }
  if (owner.sizes) columnCopy(w, owner, index);
}

function refText(names: string[], star: boolean): string {
  return `${names.join('.')}${star ? `${names.length ? '.' : ''}*` : ''}`;
}
