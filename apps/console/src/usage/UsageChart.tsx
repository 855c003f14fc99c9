import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartLine {
  label: string;
  values: number[];
  color: string;
}

/**
 * A uPlot line chart of per-day values, as wide as its container (redrawn when that changes). The
 * canvas is a picture for the eye; the same numbers are on the page as text (the legend here, the
 * totals beside it), for a screen reader and a keyboard.
 */
export function UsageChart({ title, x, lines }: { title: string; x: number[]; lines: ChartLine[] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height: 220,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true } },
      axes: [{}, { size: 60 }],
      series: [{}, ...lines.map((l) => ({ label: l.label, stroke: l.color, width: 2, points: { show: true, size: 5 } }))],
    };
    const plot = new uPlot(opts, [x, ...lines.map((l) => l.values)], el);
    const resized = new ResizeObserver(() => plot.setSize({ width: Math.max(200, el.clientWidth), height: 220 }));
    resized.observe(el);
    return () => {
      resized.disconnect();
      plot.destroy();
    };
  }, [x, lines]);
  return (
    <figure className="usage-chart">
      <figcaption>{title}</figcaption>
      <div ref={box} className="chart-box" aria-hidden="true" />
      <ul className="chart-legend">
        {lines.map((l) => (
          <li key={l.label}>
            <span className="swatch" style={{ background: l.color }} aria-hidden="true" /> {l.label}:{' '}
            {l.values.reduce((a, b) => a + b, 0).toLocaleString('en-US')}
          </li>
        ))}
      </ul>
    </figure>
  );
}
