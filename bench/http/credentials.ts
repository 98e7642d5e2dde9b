/**
 * The credentials of the authenticated HTTP benchmark: an RSA key pair made for the run, a JWT
 * signed with it, and an API key. The runner keeps the token and the key and writes the public
 * half (the public key, the key's hash) to a file that the server under test reads.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { SignJWT } from 'jose';
import { hashApiKey } from '../../src/index.ts';

/** What the server is given. */
export interface ServerCredentials {
  publicKeyPem: string;
  issuer: string;
  audience: string;
  apiKeyHash: string;
}

/** What the load generator sends. */
export interface ClientCredentials {
  jwt: string;
  apiKey: string;
}

/** Makes fresh credentials and writes the server's half to `path`. */
export async function makeCredentials(path: string): Promise<ClientCredentials> {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const server: ServerCredentials = {
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    issuer: 'https://issuer.bench.example',
    audience: 'https://api.bench.example',
    apiKeyHash: '',
  };
  const apiKey = 'bench_' + randomBytes(24).toString('base64url');
  server.apiKeyHash = hashApiKey(apiKey);
  const jwt = await new SignJWT({ roles: ['reader'], scope: 'read' })
    .setProtectedHeader({ alg: 'RS256' })
    .setSubject('bench-user')
    .setIssuer(server.issuer)
    .setAudience(server.audience)
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(privateKey);
  writeFileSync(path, JSON.stringify(server));
  return { jwt, apiKey };
}

export function readCredentials(path: string): ServerCredentials {
  return JSON.parse(readFileSync(path, 'utf8')) as ServerCredentials;
}
