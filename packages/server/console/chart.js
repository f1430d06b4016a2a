// A grouped bar chart in SVG: one group per label (category, account or month), one bar per series, in one
// currency. Margins are measured from the tick and category labels, so nothing is clipped; the x axis is a
// band per group, so the first and last bars are whole. Colours come from the stylesheet (classes), so the
// strict CSP needs no inline style. docs/console.md says why this replaced uPlot.
import { money } from './format.js';
import { Component, createRef, html } from './ui.js';

const HEIGHT = 300;
const FONT = '12px system-ui, -apple-system, "Segoe UI", sans-serif';
const TICK_GAP = 8;

/** @type {CanvasRenderingContext2D | undefined} */
let measurer;
/** @param {string} text */
function textWidth(text) {
  // A 2D context is always given for a new canvas.
  measurer ??= /** @type {CanvasRenderingContext2D} */ (document.createElement('canvas').getContext('2d'));
  measurer.font = FONT;
  return Math.ceil(measurer.measureText(text).width);
}

/** About five round steps covering [min, max] (both include 0). */
/**
 * @param {number} min
 * @param {number} max
 * @returns {number[]}
 */
function ticks(min, max) {
  if (min === max) max = min + 1;
  const raw = (max - min) / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  // 10 × power ≥ raw always: a step is found.
  const step = /** @type {number} */ ([1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw));
  /** @type {number[]} */
  const out = [];
  for (let t = Math.floor(min / step) * step; t <= max + step * 1e-9; t += step)
    out.push(Number(t.toFixed(10)));
  const last = /** @type {number} */ (out.at(-1));
  if (last < max) out.push(last + step);
  return out;
}

/** A short label for a bar group: long ones end in "…" (the full text is in the bar's title and the table). */
/**
 * @param {string} label
 * @param {number} width
 */
function fit(label, width) {
  if (textWidth(label) <= width) return label;
  let cut = label;
  while (cut.length > 1 && textWidth(`${cut}…`) > width) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/**
 * @typedef {{ name: string, values: number[] }} Series
 * @typedef {{ title: string, labels: string[], series: Series[], currency: string }} ChartProps
 */

/** @extends {Component<ChartProps, { width: number }>} */
export class BarChart extends Component {
  constructor() {
    super();
    /** @type {import('preact').RefObject<HTMLElement | null>} */
    this.box = createRef(); // the figure, measured for the chart's width
    this.state = { width: 0 };
    this.onResize = () => this.measure();
  }

  /** @override */
  componentDidMount() {
    this.measure();
    addEventListener('resize', this.onResize);
  }

  /** @override */
  componentWillUnmount() {
    removeEventListener('resize', this.onResize);
  }

  measure() {
    const width = Math.floor(this.box.current?.clientWidth ?? 0);
    if (width && width !== this.state.width) this.setState({ width });
  }

  /**
   * @override
   * @param {ChartProps} props
   * @param {{ width: number }} state
   */
  render({ title, labels, series, currency }, { width }) {
    const legend =
      series.length > 1
        ? html`<ul class="legend" aria-hidden="true">
            ${series.map((s, j) => html`<li><span class="swatch series-${j}"></span>${s.name}</li>`)}
          </ul>`
        : null;
    return html`<figure class="chart" ref=${this.box}>
      ${width ? this.svg(title, labels, series, currency, width) : null}
      ${legend}
    </figure>`;
  }

  /**
   * @param {string} title
   * @param {string[]} labels
   * @param {Series[]} series
   * @param {string} currency
   * @param {number} width
   */
  svg(title, labels, series, currency, width) {
    const values = series.flatMap((s) => s.values).filter((v) => Number.isFinite(v));
    const scale = ticks(Math.min(0, ...values), Math.max(0, ...values));
    // ticks() gives two values at least.
    const lo = /** @type {number} */ (scale[0]);
    const hi = /** @type {number} */ (scale.at(-1));
    const tickLabels = scale.map((t) => money(t, currency));
    let left = Math.max(...tickLabels.map(textWidth)) + TICK_GAP + 6;
    const right = 12;
    const n = Math.max(labels.length, 1);
    let band = (width - left - right) / n;
    // Group labels: level when they fit their band, else turned 40° with the room they need below (and on
    // the left, where the first one hangs).
    const turned = Math.max(...labels.map(textWidth)) > band - 6;
    const shown = labels.map((l) => (turned ? fit(l, 150) : l));
    if (turned) {
      left = Math.max(left, Math.ceil(textWidth(shown[0] ?? '') * Math.cos(0.7) - band / 2) + 12);
      band = (width - left - right) / n;
    }
    const turnedHeight = turned ? Math.ceil(Math.max(...shown.map(textWidth)) * Math.sin(0.7)) + 10 : 0;
    const bottom = 24 + turnedHeight;
    const top = 10;
    const plotHeight = HEIGHT - top - bottom;
    /** @param {number} v */
    const y = (v) => top + ((hi - v) / (hi - lo)) * plotHeight;
    const group = Math.min(band * 0.8, series.length * 56);
    const barWidth = group / series.length;
    return html`<svg role="img" aria-label="${title} chart (the table below has the same data)" width=${width}
        height=${HEIGHT} viewBox="0 0 ${width} ${HEIGHT}" class="bars">
      ${scale.map(
        (t, i) => html`<g class="tick">
          <line x1=${left} x2=${width - right} y1=${y(t)} y2=${y(t)} class=${t === 0 ? 'zero' : 'grid'} />
          <text x=${left - TICK_GAP} y=${y(t)} text-anchor="end" dominant-baseline="middle">${tickLabels[i]}</text>
        </g>`,
      )}
      ${labels.map((label, i) => {
        const x0 = left + i * band + (band - group) / 2;
        const cx = left + i * band + band / 2;
        const ty = HEIGHT - bottom + 16;
        return html`<g class="group">
          ${series.map((s, j) => {
            const v = s.values[i];
            if (v === undefined || !Number.isFinite(v)) return null;
            const top0 = y(Math.max(v, 0));
            return html`<rect class="bar series-${j}" x=${x0 + j * barWidth + 1} width=${Math.max(barWidth - 2, 1)}
                y=${top0} height=${Math.max(y(Math.min(v, 0)) - top0, 1)}>
              <title>${label} · ${s.name}: ${money(v, currency)}</title>
            </rect>`;
          })}
          ${
            turned
              ? html`<text x=${cx} y=${ty} text-anchor="end" transform="rotate(-40 ${cx} ${ty})">${shown[i]}</text>`
              : html`<text x=${cx} y=${ty} text-anchor="middle">${shown[i]}</text>`
          }
        </g>`;
      })}
    </svg>`;
  }
}
