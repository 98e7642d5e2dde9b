/**
 * Long-lived connections (WebSockets, event streams) open per client, each client held to a
 * number of them: one client cannot take every connection the server has. The same count,
 * weighted, holds what those connections keep (the characters of subscriptions' variables). A client is what the
 * rate limiter counts an anonymous caller as (its address, trustProxy hops trusted); entries
 * exist only while a client has connections open, so the map is as large as the connections.
 */
export class ClientSlots {
  private readonly open = new Map<string, number>();

  constructor(readonly perClient: number) {}

  /**
   * Takes `weight` slots (default one) for the client: the function that gives them back, or
   * null when the client has not that many left.
   */
  take(client: string, weight = 1): (() => void) | null {
    const count = this.open.get(client) ?? 0;
    if (count + weight > this.perClient) return null;
    this.open.set(client, count + weight);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(client) ?? weight) - weight;
      if (left <= 0) this.open.delete(client);
      else this.open.set(client, left);
    };
  }
}
