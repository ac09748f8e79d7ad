/** Route patterns of a fake platform: `/api/v1/media/:id`, `/bot:token/:method` (a parameter after text). */

export interface CompiledPattern {
  pattern: string;
  match(path: string): Record<string, string> | undefined;
}

export function compilePattern(pattern: string): CompiledPattern {
  const names: string[] = [];
  const source = pattern
    .split(/(:[A-Za-z_]\w*)/)
    .map((part) => {
      if (!part.startsWith(':')) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(part.slice(1));
      return '([^/]*)';
    })
    .join('');
  const regex = new RegExp(`^${source}$`);
  return {
    pattern,
    match(path) {
      const found = regex.exec(path);
      if (!found) return undefined;
      return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(found[i + 1] ?? '')]));
    },
  };
}
