/** Counts the tool calls under way, so that a transport can let them finish before it closes. */
export class InFlightCalls {
  private readonly pending = new Set<Promise<unknown>>();

  track<T>(call: Promise<T>): Promise<T> {
    this.pending.add(call);
    const forget = () => this.pending.delete(call);
    call.then(forget, forget);
    return call;
  }

  /** Resolves once every call tracked so far has settled. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }
}
