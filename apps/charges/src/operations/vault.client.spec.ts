import type { PeerRequest, PeerResponse, Peers } from '@pgw/platform-service';
import { lookupToken, type TokenScope } from './vault.client';

/**
 * A vault that answers the internal token route as apps/vault does: the token when the caller's scope
 * (here carried by the principal header, which the real vault verifies and reads) may see it, else 404.
 */
class CountingVault implements Peers {
  readonly calls: PeerRequest[] = [];
  down = false;
  constructor(
    private readonly tokens: Record<
      string,
      { tenantId: string; livemode: boolean; sellerId: string; cardRail: string | null }
    >,
  ) {}

  async request(service: string, request: PeerRequest): Promise<PeerResponse> {
    expect(service).toBe('vault');
    this.calls.push(request);
    if (this.down) throw new Error('connection refused');
    const id = decodeURIComponent(request.url.split('/').pop() as string);
    const scope = JSON.parse(request.headers?.['x-gateway-principal'] as string) as TokenScope;
    const t = this.tokens[id];
    if (
      t === undefined ||
      t.tenantId !== scope.tenantId ||
      t.livemode !== scope.livemode ||
      (scope.sellerId !== null && scope.sellerId !== t.sellerId)
    )
      return { statusCode: 404, body: { error: {} } };
    return {
      statusCode: 200,
      body: {
        card_ref: `cref_${id}`,
        card_rail: t.cardRail,
        brand: 'visa',
        last4: '1111',
        exp_month: 12,
        exp_year: 2030,
        seller_id: t.sellerId,
        request_id: 'req_1',
      },
    };
  }
}

const lookup = (peers: Peers, tokenId: string, scope: TokenScope) =>
  lookupToken(peers, {
    tokenId,
    scope,
    principalHeader: JSON.stringify(scope),
    requestId: 'req_x',
    timeoutMs: 1000,
  });

describe('charges → vault token lookup', () => {
  const seller: TokenScope = { tenantId: 'ten_a', livemode: false, sellerId: 'sel_1' };
  const tenantWide: TokenScope = { tenantId: 'ten_a', livemode: false, sellerId: null };

  it('asks the vault once per token and caller scope: a card charged again costs no call, and gets all the vault said', async () => {
    const vault = new CountingVault({
      tok_1: { tenantId: 'ten_a', livemode: false, sellerId: 'sel_1', cardRail: 'cielo:acme' },
    });
    const first = await lookup(vault, 'tok_1', seller);
    const again = await lookup(vault, 'tok_1', seller);
    expect(first).toEqual({
      cardRef: 'cref_tok_1',
      cardRail: 'cielo:acme',
      brand: 'visa',
      last4: '1111',
      sellerId: 'sel_1',
    });
    expect(again).toEqual(first);
    expect(vault.calls).toHaveLength(1);
    // Even with the vault down, the known token answers; an unknown one is a 503 (nothing cached for it).
    vault.down = true;
    await expect(lookup(vault, 'tok_1', seller)).resolves.toEqual(first);
    await expect(lookup(vault, 'tok_2', seller)).rejects.toMatchObject({
      code: 'service_unavailable',
    });
  });

  it('never answers a caller from another scope’s lookup: each scope is asked, and refused, as the vault decides', async () => {
    const vault = new CountingVault({
      tok_1: { tenantId: 'ten_a', livemode: false, sellerId: 'sel_1', cardRail: null },
    });
    expect(await lookup(vault, 'tok_1', seller)).not.toBeNull();
    expect(await lookup(vault, 'tok_1', { ...seller, sellerId: 'sel_2' })).toBeNull();
    expect(await lookup(vault, 'tok_1', { ...seller, tenantId: 'ten_b' })).toBeNull();
    expect(await lookup(vault, 'tok_1', { ...seller, livemode: true })).toBeNull();
    expect((await lookup(vault, 'tok_1', tenantWide))?.sellerId).toBe('sel_1');
    expect(vault.calls).toHaveLength(5);
    // A refused scope is asked again every time: a 404 is not kept.
    expect(await lookup(vault, 'tok_1', { ...seller, sellerId: 'sel_2' })).toBeNull();
    expect(vault.calls).toHaveLength(6);
  });

  it('keeps nothing of an unknown token: it is asked again, and found once the vault has it', async () => {
    const tokens: ConstructorParameters<typeof CountingVault>[0] = {};
    const vault = new CountingVault(tokens);
    expect(await lookup(vault, 'tok_9', seller)).toBeNull();
    tokens.tok_9 = { tenantId: 'ten_a', livemode: false, sellerId: 'sel_1', cardRail: 'simulator' };
    expect((await lookup(vault, 'tok_9', seller))?.cardRail).toBe('simulator');
    expect(vault.calls).toHaveLength(2);
  });

  it('hands out copies: a caller changing its answer does not change the next one', async () => {
    const vault = new CountingVault({
      tok_1: { tenantId: 'ten_a', livemode: false, sellerId: 'sel_1', cardRail: 'simulator' },
    });
    const first = await lookup(vault, 'tok_1', seller);
    (first as { cardRef: string }).cardRef = 'changed';
    expect((await lookup(vault, 'tok_1', seller))?.cardRef).toBe('cref_tok_1');
  });
});
