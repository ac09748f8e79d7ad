/**
 * Answers read from the workspace tables (users, brands, channels, collections and their links), which
 * change rarely: kept by key, frozen, exact as of the connection's change epoch. The store's own
 * workspace writes drop them all.
 */
import type { EpochMap, Sql } from './sql.js';

/** How many answers are kept before all are dropped (users × brands × pages, in practice few). */
const ANSWERS_KEPT = 4096;

/** Freezes a record and the arrays and records inside it: a cached answer must not be changed by a caller. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

export class WorkspaceAnswers {
  private readonly answers: EpochMap<string, unknown>;

  constructor(sql: Sql) {
    this.answers = sql.epochMap();
  }

  /** The answer kept under `key`, else `read()`'s, frozen and kept. */
  cached<T>(key: string, read: () => T): T {
    const answers = this.answers.current();
    if (answers.has(key)) return answers.get(key) as T;
    const answer = deepFreeze(read());
    if (answers.size >= ANSWERS_KEPT) answers.clear();
    answers.set(key, answer);
    return answer;
  }

  /** A write to the workspace tables: every kept answer may be wrong now. */
  changed<T>(result: T): T {
    this.answers.entries.clear();
    return result;
  }
}
