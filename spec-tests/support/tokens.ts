/**
 * Keys, tokens and issuer endpoints for the authentication spec-tests.
 *
 * - `makeKeyPair`: an RSA (RS256), P-256 (ES256) or Ed25519 (EdDSA) key pair made with jose, with
 *   its public key as PEM, as a JWK (carrying `kid`, `alg` and `use`) and as a KeyObject.
 * - `signToken`: a JWT signed with jose, with the claims and protected header the test chooses
 *   (nothing is added: no `iat`, no `exp` unless given).
 * - Forgeries built by hand, never with a signer that would refuse them: `algNoneToken`,
 *   `tamperedToken` (payload changed, signature kept), `corruptedSignature` (one bit of the
 *   signature flipped), `hmacConfusionToken` (HS256 keyed with the RSA public key's PEM bytes).
 * - `startJwksServer`: a JWKS endpoint on 127.0.0.1:0 that counts its hits and whose key set
 *   (or failure) the test changes at will.
 * - `startIntrospectionServer`: an RFC 7662 endpoint on 127.0.0.1:0 that records every request
 *   (method, headers, form body), counts hits, and answers with the JSON, status, raw text and
 *   delay the test configures.
 * - `unusedUrl`: the URL of a port on 127.0.0.1 that nothing listens on any more.
 *
 * Every server is closed by its `close()`, which also drops open connections and pending delayed
 * answers; call it in afterAll or afterEach.
 */
import { createHmac, KeyObject } from 'node:crypto';
import http from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT } from 'jose';
import type { CryptoKey, JWK, JWTHeaderParameters, JWTPayload } from 'jose';
import { closeNow, listenOnLoopback } from './httpServer.ts';

export type SigningAlgorithm = 'RS256' | 'ES256' | 'EdDSA';

export interface KeyPair {
  readonly alg: SigningAlgorithm;
  readonly kid: string;
  readonly privateKey: CryptoKey;
  /** The public key as SPKI PEM text. */
  readonly publicPem: string;
  /** The public key as a JWK with `kid`, `alg` and `use: 'sig'`, as a JWKS publishes it. */
  readonly publicJwk: JWK;
  /** The public key as a node:crypto KeyObject. */
  readonly publicKeyObject: KeyObject;
}

/** A fresh key pair for `alg`, named `kid`. */
export async function makeKeyPair(alg: SigningAlgorithm, kid: string): Promise<KeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(alg, alg === 'EdDSA' ? { crv: 'Ed25519' } : {});
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return {
    alg,
    kid,
    privateKey,
    publicPem: await exportSPKI(publicKey),
    publicJwk,
    publicKeyObject: KeyObject.from(publicKey),
  };
}

/** Seconds since the epoch, by `Date.now()` (so by a faked Date too). */
export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

export interface SignOptions {
  /** Protected header members added to (or replacing) `{ alg, kid }`. */
  readonly header?: Readonly<Record<string, unknown>>;
  /** Extension header parameters the signer is told it understands (for `crit`). */
  readonly crit?: Readonly<Record<string, boolean>>;
  /** Leave `kid` out of the header. */
  readonly noKid?: boolean;
}

/** A JWT with exactly these claims, signed by `key` with jose. */
export async function signToken(key: KeyPair, claims: JWTPayload, options: SignOptions = {}): Promise<string> {
  const header: JWTHeaderParameters = { alg: key.alg, ...(options.noKid === true ? {} : { kid: key.kid }), ...options.header };
  return new SignJWT(claims).setProtectedHeader(header).sign(key.privateKey, options.crit === undefined ? undefined : { crit: { ...options.crit } });
}

/** Claims of a valid token: `sub`, `exp` five minutes ahead, and `extra` on top. */
export function validClaims(extra: JWTPayload = {}): JWTPayload {
  return { sub: 'user-1', exp: nowSeconds() + 300, ...extra };
}

function base64url(data: string | Buffer): string {
  return Buffer.from(data).toString('base64url');
}

function jsonPart(value: unknown): string {
  return base64url(JSON.stringify(value));
}

/** An unsecured JWT (RFC 7519 section 6): `alg: none` and an empty signature. */
export function algNoneToken(claims: JWTPayload, header: Readonly<Record<string, unknown>> = {}): string {
  return `${jsonPart({ alg: 'none', typ: 'JWT', ...header })}.${jsonPart(claims)}.`;
}

/** The token with its payload replaced by `change(payload)`, header and signature kept. */
export function tamperedToken(token: string, change: (claims: JWTPayload) => JWTPayload): string {
  const [header = '', payload = '', signature = ''] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as JWTPayload;
  return `${header}.${jsonPart(change(claims))}.${signature}`;
}

/** The token with one bit of its signature flipped. */
export function corruptedSignature(token: string): string {
  const [header = '', payload = '', signature = ''] = token.split('.');
  const bytes = Buffer.from(signature, 'base64url');
  bytes[0] = (bytes[0] ?? 0) ^ 0x01;
  return `${header}.${payload}.${base64url(bytes)}`;
}

/**
 * Algorithm confusion: a token whose header says HS256, signed with HMAC-SHA-256 keyed with the
 * bytes of the RSA public key's PEM text, which a verifier that lets the token choose the
 * algorithm would take as the shared secret.
 */
export function hmacConfusionToken(publicPem: string, claims: JWTPayload, header: Readonly<Record<string, unknown>> = {}): string {
  const signingInput = `${jsonPart({ alg: 'HS256', typ: 'JWT', ...header })}.${jsonPart(claims)}`;
  const signature = createHmac('sha256', Buffer.from(publicPem, 'utf8')).update(signingInput).digest();
  return `${signingInput}.${base64url(signature)}`;
}

/** An HTTP server on 127.0.0.1:0 and how to stop it at once. */
interface Listening {
  readonly server: http.Server;
  readonly origin: string;
  close(): Promise<void>;
}

async function listen(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<Listening> {
  const server = http.createServer(handler);
  const port = await listenOnLoopback(server);
  return {
    server,
    origin: `http://127.0.0.1:${port}`,
    close: () => closeNow(server),
  };
}

/** The URL of a port on 127.0.0.1 that was free a moment ago and is closed now: connections are refused. */
export async function unusedUrl(path = '/'): Promise<string> {
  const listening = await listen((_request, response) => response.end());
  await listening.close();
  return `${listening.origin}${path}`;
}

/** What the JWKS endpoint answers: the key set, or a failure. */
export type JwksBehaviour = { readonly kind: 'keys' } | { readonly kind: 'status'; readonly status: number } | { readonly kind: 'text'; readonly text: string };

export interface JwksServer {
  /** `http://127.0.0.1:<port>/.well-known/jwks.json` */
  readonly url: string;
  /** Requests received so far. */
  readonly hits: number;
  /** Publishes these keys from now on. */
  setKeys(keys: ReadonlyArray<JWK>): void;
  /** Answers the key set (`{ kind: 'keys' }`, the default), a bare status, or raw text. */
  behave(behaviour: JwksBehaviour): void;
  close(): Promise<void>;
}

export async function startJwksServer(keys: ReadonlyArray<JWK>): Promise<JwksServer> {
  let published: JWK[] = [...keys];
  let behaviour: JwksBehaviour = { kind: 'keys' };
  let hits = 0;
  const listening = await listen((request, response) => {
    hits += 1;
    request.resume();
    if (behaviour.kind === 'status') {
      response.writeHead(behaviour.status, { 'content-type': 'text/plain' }).end('failure');
    } else if (behaviour.kind === 'text') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(behaviour.text);
    } else {
      response.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(JSON.stringify({ keys: published }));
    }
  });
  return {
    url: `${listening.origin}/.well-known/jwks.json`,
    get hits() {
      return hits;
    },
    setKeys(next) {
      published = [...next];
    },
    behave(next) {
      behaviour = next;
    },
    close: () => listening.close(),
  };
}

/** One request the introspection endpoint received. */
export interface IntrospectionRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** The body as received. */
  readonly body: string;
  /** The body read as application/x-www-form-urlencoded, in order. */
  readonly form: ReadonlyArray<readonly [string, string]>;
}

/** How the endpoint answers one request. */
export interface IntrospectionReply {
  /** Default 200. */
  readonly status?: number;
  /** The answer, serialized as JSON (ignored when `text` is given). */
  readonly json?: unknown;
  /** A raw body, sent as it is. */
  readonly text?: string;
  /** Milliseconds to wait before answering (real time). */
  readonly delayMs?: number;
}

export interface IntrospectionServer {
  /** `http://127.0.0.1:<port>/introspect` */
  readonly url: string;
  readonly hits: number;
  readonly requests: ReadonlyArray<IntrospectionRequest>;
  /** The answer from now on: one reply, or a function of the request (the token is `form` `token`). */
  reply(next: IntrospectionReply | ((request: IntrospectionRequest) => IntrospectionReply)): void;
  close(): Promise<void>;
}

export async function startIntrospectionServer(
  initial: IntrospectionReply | ((request: IntrospectionRequest) => IntrospectionReply) = { json: { active: false } },
): Promise<IntrospectionServer> {
  let replyWith = initial;
  const requests: IntrospectionRequest[] = [];
  const delayed = new Set<ReturnType<typeof setTimeout>>();
  const listening = await listen((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const recorded: IntrospectionRequest = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body,
        form: [...new URLSearchParams(body)],
      };
      requests.push(recorded);
      const reply = typeof replyWith === 'function' ? replyWith(recorded) : replyWith;
      const send = (): void => {
        if (response.destroyed) return;
        const text = reply.text ?? JSON.stringify(reply.json ?? null);
        response.writeHead(reply.status ?? 200, { 'content-type': 'application/json' }).end(text);
      };
      if (reply.delayMs === undefined || reply.delayMs <= 0) {
        send();
        return;
      }
      const timer = setTimeout(() => {
        delayed.delete(timer);
        send();
      }, reply.delayMs);
      delayed.add(timer);
    });
  });
  return {
    url: `${listening.origin}/introspect`,
    get hits() {
      return requests.length;
    },
    requests,
    reply(next) {
      replyWith = next;
    },
    close: () => {
      for (const timer of delayed) clearTimeout(timer);
      delayed.clear();
      return listening.close();
    },
  };
}
