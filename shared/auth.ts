/**
 * Mutual authentication between the daemon and its clients (proxy, CLI). The token in
 * daemon.json never crosses the wire: a client sends a fresh nonce and an HMAC of it, and the
 * daemon answers with an HMAC of the same nonce under another label. A process that merely
 * listens on the port daemon.json names (after the daemon died, another user may bind it)
 * learns nothing it could answer with, and is told nothing before it has answered.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const AUTH_SCHEME = 'GameBridge';
/** the daemon's answer to a client's nonce, as an HTTP header (plain routes) or in `welcome` */
export const PROOF_HEADER = 'x-game-bridge-proof';

const mac = (token: string, label: string, nonce: string) =>
  createHmac('sha256', token).update(`${label}:${nonce}`).digest('hex');

/** How old a client's nonce may be: the token outlives daemons, so a captured header must not. */
const NONCE_MAX_AGE_MS = 60_000;

/** What a client sends: `Authorization: GameBridge <nonce> <hmac>`; keep the nonce to check the answer.
 *  The nonce is its time (12 hex digits of ms) and 10 random bytes. */
export function clientCredentials(token: string): { authorization: string; nonce: string } {
  const nonce = Date.now().toString(16).padStart(12, '0') + randomBytes(10).toString('hex');
  return { authorization: `${AUTH_SCHEME} ${nonce} ${mac(token, 'client', nonce)}`, nonce };
}

/** The daemon's proof for a client's nonce. */
export function daemonProof(token: string, nonce: string): string {
  return mac(token, 'daemon', nonce);
}

export function sameHex(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Client side: did the other end prove it knows the token? */
export function proofOk(token: string, nonce: string, proof: unknown): boolean {
  return typeof proof === 'string' && sameHex(proof, daemonProof(token, nonce));
}

/** Daemon side: the nonce of a valid, recent `GameBridge` authorization header, or undefined. */
export function clientNonce(token: string, header: string | undefined): string | undefined {
  const m = /^GameBridge ([0-9a-f]{32}) ([0-9a-f]{64})$/.exec(header ?? '');
  if (!m || Math.abs(Date.now() - parseInt(m[1].slice(0, 12), 16)) > NONCE_MAX_AGE_MS) return undefined;
  return sameHex(m[2], mac(token, 'client', m[1])) ? m[1] : undefined;
}
