// Two tiny, dependency-free SVG charts for docs/benchmarks.md: horizontal bars and lines, each with an
// optional goal line. Deterministic output (no timestamps), so that unchanged numbers give unchanged files.

const PALETTE = ['#4063d8', '#389826', '#cb3c33', '#9558b2', '#e69f00', '#56b4e9'];
const FONT = 'font-family="system-ui, -apple-system, Segoe UI, sans-serif"';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const fmt = (v: number) =>
  Math.abs(v) >= 100 ? Math.round(v).toLocaleString('en-US') : String(Math.round(v * 100) / 100);

/** A "nice" axis maximum above v. */
function niceMax(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

export interface Bar {
  label: string;
  value: number;
  color?: string;
}

export interface Goal {
  value: number;
  label: string;
}

export function barChart(opts: {
  title: string;
  unit: string;
  bars: Bar[];
  goals?: Goal[];
  width?: number;
}): string {
  const width = opts.width ?? 720;
  const labelW = 300;
  const rowH = 34;
  const top = 44;
  const plotW = width - labelW - 90;
  const height = top + opts.bars.length * rowH + 40;
  const max = niceMax(Math.max(...opts.bars.map((b) => b.value), ...(opts.goals ?? []).map((g) => g.value)));
  const x = (v: number) => labelW + (v / max) * plotW;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ${FONT} font-size="13">`,
    `<title>${esc(opts.title)}</title>`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="12" y="24" font-size="15" font-weight="600">${esc(opts.title)}</text>`,
  ];
  for (let i = 0; i <= 4; i++) {
    const v = (max / 4) * i;
    parts.push(
      `<line x1="${x(v)}" y1="${top - 6}" x2="${x(v)}" y2="${height - 30}" stroke="#e5e5e5"/>`,
      `<text x="${x(v)}" y="${height - 14}" text-anchor="middle" fill="#666">${fmt(v)}</text>`,
    );
  }
  parts.push(
    `<text x="${width - 12}" y="${height - 14}" text-anchor="end" fill="#666">${esc(opts.unit)}</text>`,
  );
  opts.bars.forEach((b, i) => {
    const y = top + i * rowH;
    parts.push(
      `<text x="${labelW - 8}" y="${y + 18}" text-anchor="end">${esc(b.label)}</text>`,
      `<rect x="${labelW}" y="${y + 4}" width="${Math.max(1, x(b.value) - labelW)}" height="${rowH - 12}" fill="${b.color ?? PALETTE[i % PALETTE.length]}" rx="2"/>`,
      `<text x="${x(b.value) + 6}" y="${y + 18}" fill="#222">${fmt(b.value)}</text>`,
    );
  });
  for (const g of opts.goals ?? []) {
    parts.push(
      `<line x1="${x(g.value)}" y1="${top - 8}" x2="${x(g.value)}" y2="${height - 30}" stroke="#cb3c33" stroke-width="1.5" stroke-dasharray="5 4"/>`,
      `<text x="${x(g.value) + 4}" y="${top - 10}" fill="#cb3c33" font-size="12">${esc(g.label)}</text>`,
    );
  }
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

export interface Series {
  label: string;
  points: [number, number][];
}

export function lineChart(opts: {
  title: string;
  xUnit: string;
  yUnit: string;
  series: Series[];
  goals?: Goal[];
  width?: number;
}): string {
  const width = opts.width ?? 720;
  const height = 320;
  const left = 60;
  const right = 20;
  const top = 60;
  const bottom = 44;
  const all = opts.series.flatMap((s) => s.points);
  const maxX = niceMax(Math.max(1, ...all.map((p) => p[0])));
  const maxY = niceMax(Math.max(...all.map((p) => p[1]), ...(opts.goals ?? []).map((g) => g.value)));
  const x = (v: number) => left + (v / maxX) * (width - left - right);
  const y = (v: number) => height - bottom - (v / maxY) * (height - top - bottom);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ${FONT} font-size="12">`,
    `<title>${esc(opts.title)}</title>`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="12" y="22" font-size="15" font-weight="600">${esc(opts.title)}</text>`,
  ];
  for (let i = 0; i <= 4; i++) {
    const vy = (maxY / 4) * i;
    const vx = (maxX / 4) * i;
    parts.push(
      `<line x1="${left}" y1="${y(vy)}" x2="${width - right}" y2="${y(vy)}" stroke="#e5e5e5"/>`,
      `<text x="${left - 6}" y="${y(vy) + 4}" text-anchor="end" fill="#666">${fmt(vy)}</text>`,
      `<text x="${x(vx)}" y="${height - bottom + 16}" text-anchor="middle" fill="#666">${fmt(vx)}</text>`,
    );
  }
  parts.push(
    `<text x="${width - right}" y="${height - 8}" text-anchor="end" fill="#666">${esc(opts.xUnit)}</text>`,
    `<text x="${left - 6}" y="${top - 12}" text-anchor="end" fill="#666">${esc(opts.yUnit)}</text>`,
  );
  opts.series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length];
    const d = s.points.map((p, j) => `${j ? 'L' : 'M'}${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`).join('');
    parts.push(
      `<path d="${d}" fill="none" stroke="${color}" stroke-width="2"/>`,
      `<rect x="${left + 10 + (i % 3) * 210}" y="${32 + Math.floor(i / 3) * 14}" width="10" height="10" fill="${color}"/>`,
      `<text x="${left + 24 + (i % 3) * 210}" y="${41 + Math.floor(i / 3) * 14}">${esc(s.label)}</text>`,
    );
  });
  for (const g of opts.goals ?? []) {
    parts.push(
      `<line x1="${left}" y1="${y(g.value)}" x2="${width - right}" y2="${y(g.value)}" stroke="#cb3c33" stroke-width="1.5" stroke-dasharray="5 4"/>`,
      `<text x="${width - right - 4}" y="${y(g.value) - 4}" text-anchor="end" fill="#cb3c33">${esc(g.label)}</text>`,
    );
  }
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
