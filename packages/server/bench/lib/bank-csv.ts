/**
 * A checking account's CSV export of `rows` movements in Chase's layout (Details, Posting Date, …, a running
 * balance), every fifth a credit: what the import benchmarks send. `tag` makes its lines unique to a round.
 */
export function chaseCsv(rows: number, tag = ''): string {
  const lines = ['Details,Posting Date,Description,Amount,Type,Balance,Check or Slip #'];
  let balance = 0;
  for (let i = 0; i < rows; i++) {
    const day = String((i % 28) + 1).padStart(2, '0');
    const spend = i % 5 !== 0;
    const amount = (spend ? -1 : 1) * ((i % 400) + 1 + (i % 100) / 100);
    balance += amount;
    lines.push(
      `${spend ? 'DEBIT' : 'CREDIT'},02/${day}/2026,"SHOP ${tag ? `${tag} ` : ''}${i} OAKLAND CA",${amount.toFixed(2)},${spend ? 'DEBIT_CARD' : 'ACH_CREDIT'},${balance.toFixed(2)},,`,
    );
  }
  return `${lines.join('\n')}\n`;
}
