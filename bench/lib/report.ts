/** One figure of a benchmark, the bar it is held to, and the table and JSON they make. */
import { cpus, release, totalmem } from 'node:os';

export interface Figure {
  /** What was measured, e.g. "cold start (spawn → initialize)". */
  name: string;
  /** The measured value, in `unit`. */
  value: number;
  unit: string;
  /** What the value is compared with in the same run, when the bar is relative. */
  reference?: { name: string; value: number };
  /** The bar of product.md, as text. */
  bar: string;
  /** value / reference, or value / absolute limit; undefined when the bar is a yes/no. */
  ratio?: number;
  /** Undefined: informative only, no bar. */
  pass?: boolean;
  /** Anything else worth keeping (percentiles, counts, plans). */
  details?: Record<string, unknown>;
}

export interface BenchResult {
  bench: string;
  seconds: number;
  figures: Figure[];
  error?: string;
}

export function machine(driver?: string): Record<string, unknown> {
  const cpu = cpus();
  return {
    cpu: cpu[0]?.model.trim() ?? 'unknown',
    cores: cpu.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: `${process.platform} ${release()}`,
    node: process.version,
    sqliteDriver: driver,
  };
}

/** 3 significant digits, plain. */
export function fmt(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (Number.isInteger(value) && abs < 1000) return String(value);
  if (abs >= 1000) return Math.round(value).toLocaleString('en-US');
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  return value.toPrecision(3);
}

function figureText(f: Figure): string {
  const value = `${fmt(f.value)} ${f.unit}`;
  return f.reference ? `${value} (${f.reference.name}: ${fmt(f.reference.value)} ${f.unit})` : value;
}

function passText(f: Figure): string {
  if (f.pass === undefined) return '';
  return f.pass ? 'pass' : 'MISS';
}

/** A markdown table: figure | bar | ratio | pass. */
export function table(results: readonly BenchResult[]): string {
  const rows: string[][] = [['what', 'figure', 'bar', 'ratio', 'pass']];
  for (const result of results) {
    if (result.error) rows.push([result.bench, `failed: ${result.error.split('\n')[0]}`, '', '', 'MISS']);
    for (const f of result.figures) {
      rows.push([f.name, figureText(f), f.bar, f.ratio === undefined ? '' : `${fmt(f.ratio)}×`, passText(f)]);
    }
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (row: string[]) => `| ${row.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  return [
    line(rows[0]!),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.slice(1).map(line),
  ].join('\n');
}
