/**
 * The store's SQLite file, opened for use by one of possibly several processes starting at once: each
 * waits for the others' locks, the schema is brought up to date once, and a file that cannot be used
 * is refused at once with a StorageStartError naming it and what to do, rather than opened and then
 * failing every write.
 */
import { mkdirSync, statfsSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { StorageStartError } from '../../domain/errors.js';
import { openDatabase, rollBackFailed, type SqlDatabase, sqliteErrorCode } from './driver.js';
import { migrate } from './migrations.js';

/**
 * A start-up failure of SQLite as a message naming the file and what to do, or the error as it is when
 * it is none of these. (A read-only or unwritable directory is found before, by writing to it.)
 */
function databaseStartError(file: string, error: unknown): unknown {
  const sqlite = (error as Error).message;
  const code = sqliteErrorCode(error);
  // Opening needs room too (the -shm file): on a full disk it fails as a plain I/O error.
  switch (code === 'SQLITE_IOERR' && isDiskFull(dirname(file)) ? 'SQLITE_FULL' : code) {
    case 'SQLITE_NOTADB':
    case 'SQLITE_CORRUPT':
      return new StorageStartError(
        `${file} is not a readable SQLite database (SQLite: ${sqlite}). Stop every program using it; if a ${basename(file)}-wal file sits beside it, keep it with the database (it holds recent writes). Restore the file from a backup, or move it aside to start with an empty store.`,
        { cause: error },
      );
    case 'SQLITE_READONLY':
      return new StorageStartError(
        `${file} is read-only or not writable by this user (SQLite: ${sqlite}): SQLite needs to write to it and to its -wal/-shm files beside it. Make them writable, or set SOCIAL_PUBLISHER_DATA_DIR to a writable directory.`,
        { cause: error },
      );
    case 'SQLITE_CANTOPEN':
      return new StorageStartError(
        `${file} cannot be opened (SQLite: ${sqlite}): it must be a file this user can read and write, in a directory it can write. Fix that, or set SOCIAL_PUBLISHER_DATA_DIR to another directory.`,
        { cause: error },
      );
    case 'SQLITE_FULL':
      return new StorageStartError(
        `the disk holding ${file} is full (SQLite: ${sqlite}). Free space on it, or set SOCIAL_PUBLISHER_DATA_DIR to a directory on another disk.`,
        { cause: error },
      );
    default:
      return error;
  }
}

/** Whether the file system holding `directory` has (next to) no space left. */
function isDiskFull(directory: string): boolean {
  try {
    const { bavail, bsize } = statfsSync(directory);
    return bavail * bsize < NEARLY_FULL_BYTES;
  } catch {
    return false;
  }
}

/** Less free space than this, and an I/O error at open is taken for a full disk. */
const NEARLY_FULL_BYTES = 256 * 1024;

/**
 * Tries a write and takes it back: SQLite opens a file it may not write read-only without a word, and
 * only a write says so. (`PRAGMA user_version` set to itself dirties the header page; nothing reaches
 * the disk, since it is rolled back.)
 */
function probeWrite(db: SqlDatabase): void {
  db.exec('BEGIN IMMEDIATE');
  try {
    const { user_version } = db.prepare('PRAGMA user_version').get() as { user_version: number };
    db.exec(`PRAGMA user_version = ${Number(user_version)}`);
  } catch (error) {
    rollBackFailed(db);
    throw error;
  }
  db.exec('ROLLBACK');
}

/** Opens (creating if needed) the file in WAL mode, migrated and known to be writable. */
/** How long an open keeps retrying while another process starting on the same fresh file holds its lock. */
const OPEN_BUSY_RETRY_MS = 5_000;

export function openStoreFile(file: string): SqlDatabase {
  // Two processes starting on one fresh file: SQLite may answer "database is locked" to one of them at
  // once, busy timeout or not (a lock it cannot wait for without risking a deadlock). Opening again
  // then finds the file as the other left it.
  const deadline = Date.now() + OPEN_BUSY_RETRY_MS;
  for (;;) {
    try {
      return openStoreFileOnce(file);
    } catch (error) {
      const busy = sqliteErrorCode(error) === 'SQLITE_BUSY';
      if (!busy || Date.now() > deadline) throw error;
      const until = Date.now() + 20 + Math.floor(Math.random() * 30);
      while (Date.now() < until) {
        // A short synchronous wait: the store opens before anything else runs.
      }
    }
  }
}

function openStoreFileOnce(file: string): SqlDatabase {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  let db: SqlDatabase | undefined;
  try {
    db = openDatabase(file);
    // First: switching a fresh file to WAL takes a lock that another process starting may hold, and
    // node:sqlite's API does not wait for a lock unless told to.
    db.exec('PRAGMA busy_timeout = 5000');
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA foreign_keys = ON');
    migrate(db);
    probeWrite(db);
  } catch (error) {
    db?.close();
    throw databaseStartError(file, error);
  }
  return db;
}
