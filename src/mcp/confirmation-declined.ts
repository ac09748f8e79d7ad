/** The user did not confirm, or could not be asked: nothing was done. The message says what was not done. */
export class ConfirmationDeclinedError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ConfirmationDeclinedError';
  }
}
