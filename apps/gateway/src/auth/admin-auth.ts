import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '@pgw/platform-http';

const HEADER_LENGTH_MAX = 1_024;

/**
 * The operator API's check: `Authorization: Bearer <ADMIN_TOKEN>`. Both sides are hashed with SHA-256
 * first, so timingSafeEqual compares two buffers of one length and the time taken says nothing about
 * the token, not even its length. An `sk_` key, however valid on /api/v1, is just a wrong token here.
 */
export function adminTokenCheck(adminToken: string): (request: FastifyRequest) => void {
  if (adminToken.length === 0) throw new Error('the admin token must not be empty');
  const expected = createHash('sha256').update(adminToken, 'utf8').digest();
  return (request) => {
    const header = request.headers.authorization;
    if (
      typeof header !== 'string' ||
      header.length > HEADER_LENGTH_MAX ||
      !header.startsWith('Bearer ')
    ) {
      throw new ApiError(
        'admin_token_invalid',
        'The operator API needs Authorization: Bearer <ADMIN_TOKEN>.',
      );
    }
    const given = createHash('sha256').update(header.slice('Bearer '.length), 'utf8').digest();
    if (!timingSafeEqual(given, expected)) {
      throw new ApiError('admin_token_invalid', 'The admin token is not valid.');
    }
  };
}
