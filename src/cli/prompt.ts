/**
 * Questions on the terminal for `connect`, on stderr (stdout carries the JSON result). A secret is read
 * without echo. When stdin is not a terminal (a script piping the answer in), one line is read from it.
 */
import { createInterface } from 'node:readline';

/** Reads one line; `secret` hides what is typed. */
export function ask(question: string, options: { secret?: boolean } = {}): Promise<string> {
  const input = process.stdin;
  const output = process.stderr;
  if (!input.isTTY) return readLine(question);
  return new Promise((resolve, reject) => {
    output.write(question);
    let answer = '';
    input.setRawMode(true);
    input.resume();
    input.setEncoding('utf8');
    const done = (error?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      output.write('\n');
      if (error) reject(error);
      else resolve(answer.trim());
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n' || char === '\u0004') return done();
        if (char === '\u0003') return done(new Error('Cancelled.'));
        if (char === '\u007f' || char === '\b') answer = answer.slice(0, -1);
        else if (char >= ' ') answer += char;
        if (!options.secret) output.write(char >= ' ' ? char : '');
      }
    };
    input.on('data', onData);
  });
}

function readLine(question: string): Promise<string> {
  process.stderr.write(question);
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: process.stdin, terminal: false });
    let answered = false;
    lines.once('line', (line) => {
      answered = true;
      lines.close();
      resolve(line.trim());
    });
    lines.once('close', () => {
      if (!answered) reject(new Error('No answer: stdin ended before a line was read.'));
    });
  });
}
