/** A one-line progress bar on a terminal's stderr; silent when stderr is not a terminal. */
export class ProgressBar {
  private last = '';
  constructor(
    private readonly stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number },
    private readonly total: number,
    private readonly label: string,
  ) {}

  get active(): boolean {
    return Boolean(this.stream.isTTY);
  }

  update(done: number): void {
    if (!this.active) return;
    const cols = Math.max(20, Math.min(this.stream.columns ?? 80, 100));
    const counter = ` ${done}/${this.total} rows`;
    const barWidth = Math.max(10, cols - this.label.length - counter.length - 4);
    const filled = this.total === 0 ? barWidth : Math.round((done / this.total) * barWidth);
    const line = `${this.label} [${'#'.repeat(filled)}${'.'.repeat(barWidth - filled)}]${counter}`;
    if (line === this.last) return;
    this.last = line;
    this.stream.write(`\r${line}\u001b[K`);
  }

  /** Clears the bar so that the next message starts on a clean line. */
  done(): void {
    if (this.active && this.last) this.stream.write('\r\u001b[K');
    this.last = '';
  }
}
