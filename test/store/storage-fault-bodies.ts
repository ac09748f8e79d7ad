/** The exact REST bodies of the two storage faults: 507 (disk full) and 503 (no longer writable). */

export const DISK_FULL_BODY = JSON.stringify({
  status: 'error',
  message: 'Insufficient Storage.',
  errors: {
    storage: "The server's disk is full, so nothing was saved. Free space on the server, then try again.",
  },
});

export const READ_ONLY_BODY = JSON.stringify({
  status: 'error',
  message: 'Service Unavailable.',
  errors: {
    storage:
      "The server's data directory is no longer writable, so nothing was saved. Make it writable on the server again, then try again.",
  },
});
