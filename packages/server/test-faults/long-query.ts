/** A read the dialect allows that runs for minutes over a few thousand rows (a triple cross join). */
export const LONG_SQL = 'SELECT count(*) AS n FROM ledger_entries a, ledger_entries b, ledger_entries c';
