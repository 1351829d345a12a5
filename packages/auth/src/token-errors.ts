import { A2AError } from '@taskwire/core';

/**
 * Why a bearer token was refused, as the `tokenError` ErrorInfo metadata of
 * the `Unauthenticated` error names it (stable: tests and clients may rely
 * on these values).
 */
export type TokenErrorCode =
  | 'missing_subject'
  | 'expired'
  | 'missing_expiry'
  | 'not_yet_valid'
  | 'issued_in_future'
  | 'wrong_issuer'
  | 'wrong_audience'
  | 'invalid_claims'
  | 'algorithm_not_allowed'
  | 'unknown_key'
  | 'bad_signature'
  | 'malformed'
  | 'too_large'
  | 'keys_unavailable'
  | 'wrong_type';

const DESCRIPTIONS: Record<TokenErrorCode, string> = {
  missing_subject: 'The token names no subject (sub) to act as',
  expired: 'The token has expired; get a new one',
  missing_expiry: 'The token has no expiry (exp); this agent accepts only tokens that expire',
  not_yet_valid: 'The token is not valid yet (nbf is in the future)',
  issued_in_future: 'The token was issued in the future (iat); check the issuer clock',
  wrong_issuer: 'The token was issued by an issuer this agent does not trust',
  wrong_audience: 'The token is meant for another audience (aud); request a token for this agent',
  invalid_claims: 'The token claims are not valid',
  algorithm_not_allowed: 'The token is signed with an algorithm this agent does not accept',
  unknown_key: 'The token is signed with a key the issuer does not publish (unknown kid)',
  bad_signature: 'The token signature is not valid',
  malformed: 'The bearer token is not a well-formed JWT',
  too_large: 'The bearer token is larger than this agent accepts',
  keys_unavailable: 'The issuer signing keys could not be fetched; try again later',
  wrong_type: 'The token is not an access token of the accepted type (typ)',
};

/**
 * `Unauthenticated` for a refused token: RFC 6750 `invalid_token` with a
 * description of what failed (never the token itself), and the
 * {@link TokenErrorCode} in the ErrorInfo metadata as `tokenError`.
 */
export function tokenError(code: TokenErrorCode): A2AError {
  return new A2AError('Unauthenticated', DESCRIPTIONS[code], { error: 'invalid_token', tokenError: code });
}

const CLAIM_CODES: Record<string, TokenErrorCode> = { nbf: 'not_yet_valid', iat: 'issued_in_future', iss: 'wrong_issuer', aud: 'wrong_audience', exp: 'expired', typ: 'wrong_type' };

const JOSE_CODES: Record<string, TokenErrorCode> = {
  ERR_JWT_EXPIRED: 'expired',
  ERR_JOSE_ALG_NOT_ALLOWED: 'algorithm_not_allowed',
  ERR_JOSE_NOT_SUPPORTED: 'algorithm_not_allowed',
  ERR_JWKS_NO_MATCHING_KEY: 'unknown_key',
  ERR_JWKS_MULTIPLE_MATCHING_KEYS: 'unknown_key',
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED: 'bad_signature',
  ERR_JWS_INVALID: 'malformed',
  ERR_JWT_INVALID: 'malformed',
  ERR_JWKS_INVALID: 'keys_unavailable',
  ERR_JWKS_TIMEOUT: 'keys_unavailable',
};

/**
 * The {@link TokenErrorCode} of a failure thrown while verifying with
 * jose; `undefined` for a failure that is not about the token (the caller
 * treats it as the keys being unavailable).
 */
export function codeOfJoseError(error: unknown): TokenErrorCode | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, claim, reason } = error as { code?: string; claim?: string; reason?: string };
  if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') {
    if (claim === 'exp' && reason === 'missing') return 'missing_expiry';
    return (claim && CLAIM_CODES[claim]) || 'invalid_claims';
  }
  return code ? JOSE_CODES[code] : undefined;
}
