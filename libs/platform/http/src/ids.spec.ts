import { newRequestId, REQUEST_ID_PATTERN } from './ids';

describe('newRequestId', () => {
  it('is req_ and 24 base62 characters, within the pattern the API accepts, and never repeats', () => {
    const ids = Array.from({ length: 200 }, newRequestId);
    for (const id of ids) {
      expect(id).toMatch(/^req_[A-Za-z0-9]{24}$/);
      expect(REQUEST_ID_PATTERN.test(id)).toBe(true);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });
});
