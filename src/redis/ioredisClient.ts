/**
 * A connected ioredis client the application made itself, as the Redis stores accept it. Typed
 * by the little the package's types need to say of it, not by ioredis's own class: ioredis is an
 * optional dependency, and the package's types must compile in a project without it.
 */
export interface IoredisClient {
  readonly status: string;
  quit(): Promise<unknown>;
}
