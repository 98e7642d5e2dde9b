/**
 * Webhook signatures, as the Standard Webhooks specification sets them (the scheme Svix,
 * Stripe-like providers and the `standardwebhooks` receiver libraries share):
 *
 *   secret            `whsec_` + base64 of 32 random bytes; the key is the bytes
 *   webhook-id        the event's id: the receiver's idempotency key, the same on every attempt
 *   webhook-timestamp seconds since the epoch, at the attempt (receivers refuse old ones)
 *   webhook-signature `v1,` + base64 of HMAC-SHA256(key, `${id}.${timestamp}.${body}`), one per
 *                     secret in force, separated by spaces (two during a rotation)
 */
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** A new signing secret. */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The `webhook-signature` value for a body, signed with every secret given. */
export function signatureHeader(secrets: ReadonlyArray<string>, id: string, timestamp: number, body: string): string {
  const signed = `${id}.${timestamp}.${body}`;
  return secrets.map((secret) => `v1,${createHmac('sha256', Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')).update(signed).digest('base64')}`).join(' ');
}

/**
 * The headers of one attempt: the event's id, the attempt's time and the body's signature with
 * every secret in force at `now` (milliseconds since the epoch).
 */
export function deliveryHeaders(secretsInForce: ReadonlyArray<string>, eventId: string, now: number, body: string): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': 'graphql-glassbox-webhooks',
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(secretsInForce, eventId, timestamp, body),
  };
}
