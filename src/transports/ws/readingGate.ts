/**
 * Whether a WebSocket is read: two things stop it, independently, and it is read again only once
 * neither does.
 *
 *  - its messages wait for their turns (server.ts, inTurns): a large message and those after it
 *    are handled one per turn of the client's lane, the socket paused until the last is handled;
 *  - a refusal holds it (the client over its rate limit: RateLimitOptions.holdRefusalsMs): its
 *    next messages wait in its TCP window for the hold, and a client that keeps sending is
 *    stopped by the window rather than read, parsed and refused message after message.
 *
 * One owner of pause() and resume(), so that neither undoes the other: the turns ending must not
 * resume a socket a refusal holds, nor a hold running out one whose messages still wait.
 */
import { WebSocket } from 'ws';

export class ReadingGate {
  private waitingTurns = false;
  private held: NodeJS.Timeout | null = null;
  /** What waits for the hold to run out (messages read before it, waiting their turns). */
  private afterHolding: Array<() => void> = [];

  constructor(private readonly ws: WebSocket) {}

  /** Messages wait for their turns: the socket is not read until turnsDone(). */
  waitForTurns(): void {
    this.waitingTurns = true;
    this.ws.pause();
  }

  turnsDone(): void {
    this.waitingTurns = false;
    this.resumeIfFree();
  }

  /** Not read for `ms`. Already held: the first hold runs out (a hold is never extended). */
  hold(ms: number): void {
    if (this.held !== null || this.ws.readyState !== WebSocket.OPEN) return;
    this.ws.pause();
    this.held = setTimeout(() => {
      this.held = null;
      const waiting = this.afterHolding;
      this.afterHolding = [];
      // Each may be refused again and hold the socket anew: it is then not resumed.
      for (const run of waiting) run();
      this.resumeIfFree();
    }, ms);
  }

  /** Whether a hold is running (messages ws had read before it wait for it to run out). */
  get holding(): boolean {
    return this.held !== null;
  }

  /** Runs `run` now, or when the running hold runs out. */
  afterHold(run: () => void): void {
    if (this.held === null) run();
    else this.afterHolding.push(run);
  }

  /** The socket is gone: a hold's timer and what waited for it are let go. */
  closed(): void {
    if (this.held !== null) clearTimeout(this.held);
    this.held = null;
    this.afterHolding = [];
  }

  private resumeIfFree(): void {
    // resume() does nothing to a socket closed meanwhile.
    if (!this.waitingTurns && this.held === null) this.ws.resume();
  }
}
