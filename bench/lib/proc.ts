/** Processes under test: the built server, temporary data directories, and memory read from /proc. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');
/** The built server (`npm run bench` builds it first). */
export const MAIN = join(ROOT, 'dist', 'main.js');
export const EVERYTHING = join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-everything',
  'dist',
  'index.js',
);

const dirs: string[] = [];

/** A fresh temporary directory, removed by `removeTempDirs`. */
export function tempDir(prefix = 'spm-bench-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** The environment of a local server on `dataDir`: no remote mode, no key, sandbox publisher. */
export function serverEnv(dataDir: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('SOCIAL_PUBLISHER_')) env[key] = value;
  }
  env.SOCIAL_PUBLISHER_DATA_DIR = dataDir;
  return env;
}

/** A field of /proc/<pid>/status in kB (VmRSS: resident now; VmHWM: the peak resident). */
export function procStatusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]);
}

export const mib = (kb: number): number => kb / 1024;

/** Resets the peak RSS (VmHWM) of a process we own to its current RSS (Linux: clear_refs 5). */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Samples VmRSS every `everyMs` until stopped; returns the largest value seen, in kB. */
export function sampleRss(pid: number, everyMs = 5): { stop(): number } {
  let peak = 0;
  const read = () => {
    try {
      peak = Math.max(peak, procStatusKb(pid, 'VmRSS'));
    } catch {
      // The process has gone.
    }
  };
  read();
  const timer = setInterval(read, everyMs);
  return {
    stop() {
      clearInterval(timer);
      read();
      return peak;
    },
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** CPU time (user + system) a process has used, in ms, from /proc/<pid>/stat (10 ms ticks). */
export function cpuMs(pid: number | 'self'): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Context switches (voluntary + involuntary) of a process so far, from /proc/<pid>/status. */
export function contextSwitches(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
  return field('voluntary_ctxt_switches') + field('nonvoluntary_ctxt_switches');
}
