import { randomBytes } from 'node:crypto';
import { createServer, request as httpsRequest, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { buildBrCode } from '@pgw/domain';
import { centsToReais, reaisToCents } from '../amounts';

// A stateful PSP written from the API Pix specification (../spec/openapi.yaml), for flow tests: it keeps
// cob, cobv, received Pix, devoluções and the webhook registration, answers with the standard's shapes
// and problem types, refuses a reused txid or devolução id (400, as the standard's CobOperacaoInvalida and
// PixDevolucaoInvalida say), and requires what a PSP requires: mutual TLS with a certificate from its CA,
// and an OAuth2 client-credentials token. The test plays the payer (`pay`) and the settlement of refunds
// (`settleRefund`); each of them POSTs the notification to the registered webhook, as a PSP does.

const ISPB = '12345678'; // the fake PSP's participant code, the first 8 characters after E in an end-to-end id
const PROBLEM = 'https://pix.bcb.gov.br/api/v2/error/';

interface Cob {
  kind: 'cob' | 'cobv';
  txid: string;
  revisao: number;
  status: 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR';
  calendario: Record<string, unknown>;
  devedor?: unknown;
  valor: { original: string };
  chave: string;
  location: string;
  pixCopiaECola: string;
  locId: number;
  criacao: string;
}

interface ReceivedPix {
  endToEndId: string;
  txid: string;
  valor: string;
  horario: string;
  chave: string;
  devolucoes: Devolucao[];
}

interface Devolucao {
  id: string;
  rtrId: string;
  valor: string;
  horario: { solicitacao: string; liquidacao?: string };
  status: 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';
  motivo?: string;
}

export type Fault = { status: number; afterApplying?: boolean } | { delayMs: number };

export interface FakePspOptions {
  tls: { cert: Buffer; key: Buffer; ca: Buffer };
  clientId: string;
  clientSecret: string;
  chave: string;
  tokenLifetimeSeconds?: number;
  /** What the fake's notifications to the webhook trust (the receiver's CA). */
  webhookCa?: Buffer;
  /** The client certificate the fake presents on its notifications (the mutual TLS of the BCB's webhook). */
  webhookClient?: { cert: Buffer; key: Buffer };
}

export interface SeenRequest {
  method: string;
  path: string;
  /** The subject CN of the client certificate presented on this connection. */
  clientCertificate: string;
}

export class FakePsp {
  readonly seen: SeenRequest[] = [];
  tokensIssued = 0;
  readonly notificationsSent: unknown[] = [];
  private readonly cobs = new Map<string, Cob>();
  private readonly pix = new Map<string, ReceivedPix>();
  private readonly tokens = new Set<string>();
  private readonly faults: Fault[] = [];
  private webhookUrl: string | null = null;
  private nextLocId = 1;
  private server: Server | null = null;
  private baseUrl = '';

  constructor(private readonly options: FakePspOptions) {}

  async start(): Promise<{ baseUrl: string; tokenUrl: string }> {
    const server = createServer(
      {
        cert: this.options.tls.cert,
        key: this.options.tls.key,
        ca: this.options.tls.ca,
        requestCert: true,
        rejectUnauthorized: true,
      },
      (req, res) => void this.handle(req, res),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    const { port } = server.address() as { port: number };
    this.baseUrl = `https://127.0.0.1:${port}`;
    return { baseUrl: `${this.baseUrl}/api/v2`, tokenUrl: `${this.baseUrl}/oauth/token` };
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server === null) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The next API call (not the token request) meets this fault. */
  inject(fault: Fault): void {
    this.faults.push(fault);
  }

  /** Every token issued so far stops working, as when a PSP rotates or revokes them. */
  revokeTokens(): void {
    this.tokens.clear();
  }

  /** The URL registered with PUT /webhook/{chave}, or null. */
  get registeredWebhook(): string | null {
    return this.webhookUrl;
  }

  cob(txid: string): Cob | undefined {
    return this.cobs.get(txid);
  }

  /**
   * The payer's bank pays the charge in full: the cob is CONCLUIDA and the webhook, if any, is told —
   * unless `notify: false`, a notification lost on the way (GET /pix still lists the Pix).
   */
  async pay(txid: string, at = new Date(), options: { notify?: boolean } = {}): Promise<string> {
    const cob = this.cobs.get(txid);
    if (cob === undefined || cob.status !== 'ATIVA') throw new Error(`cob ${txid} is not payable`);
    const endToEndId = `E${ISPB}${at.toISOString().replace(/\D/g, '').slice(0, 12)}${randomBytes(8).toString('hex').slice(0, 11)}`;
    const received: ReceivedPix = {
      endToEndId,
      txid,
      valor: cob.valor.original,
      horario: at.toISOString(),
      chave: cob.chave,
      devolucoes: [],
    };
    this.pix.set(endToEndId, received);
    cob.status = 'CONCLUIDA';
    if (options.notify !== false) await this.notify([received]);
    return endToEndId;
  }

  /** The PSP sends a received Pix's notification again, as it retries one it thinks was not delivered. */
  async renotify(endToEndId: string): Promise<void> {
    const received = this.pix.get(endToEndId);
    if (received === undefined) throw new Error('no such Pix');
    await this.notify([received]);
  }

  /** The SPI settles (or fails) a refund: it reaches a final status and the webhook is told. */
  async settleRefund(
    endToEndId: string,
    id: string,
    outcome: 'DEVOLVIDO' | 'NAO_REALIZADO' = 'DEVOLVIDO',
  ): Promise<void> {
    const received = this.pix.get(endToEndId);
    const devolucao = received?.devolucoes.find((d) => d.id === id);
    if (received === undefined || devolucao === undefined) throw new Error('no such refund');
    devolucao.status = outcome;
    if (outcome === 'DEVOLVIDO') devolucao.horario.liquidacao = new Date().toISOString();
    else devolucao.motivo = 'Conta do pagador encerrada';
    await this.notify([received]);
  }

  private async notify(pix: ReceivedPix[]): Promise<void> {
    if (this.webhookUrl === null) return;
    const body = JSON.stringify({ pix: pix.map(wirePix) });
    this.notificationsSent.push(JSON.parse(body));
    // The standard: the PSP calls `{webhookUrl}/pix`.
    const url = `${this.webhookUrl.replace(/\/+$/, '')}/pix`;
    await new Promise<void>((resolve, reject) => {
      const req = httpsRequest(
        url,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          ...(this.options.webhookCa ? { ca: this.options.webhookCa } : {}),
          ...(this.options.webhookClient ?? {}),
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 200
              ? resolve()
              : reject(new Error(`webhook answered ${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.baseUrl);
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    this.seen.push({
      method: req.method ?? '',
      path: url.pathname,
      clientCertificate: String(peer.subject?.CN ?? ''),
    });
    const text = await new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });

    if (url.pathname === '/oauth/token') return this.token(req, text, res);
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (bearer === undefined || !this.tokens.has(bearer))
      return problem(res, 401, 'AcessoNegado', 'Token ausente, expirado ou inválido.');

    const fault = this.faults.shift();
    if (fault !== undefined && 'delayMs' in fault)
      await new Promise((r) => setTimeout(r, fault.delayMs));
    if (fault !== undefined && 'status' in fault && fault.afterApplying !== true)
      return problem(res, fault.status, 'ServicoIndisponivel', 'Falha injetada.');

    let body: unknown = null;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        return problem(res, 400, 'RequisicaoInvalida', 'JSON inválido.');
      }
    }
    const answer = this.route(req.method ?? '', url, body as Record<string, unknown> | null);
    // A fault "after applying": the state changed but the answer is lost, as when the PSP fails on its way out.
    if (fault !== undefined && 'status' in fault)
      return problem(res, fault.status, 'ServicoIndisponivel', 'Falha injetada após aplicar.');
    if (answer.problem !== undefined)
      return problem(res, answer.status, answer.problem, answer.detail ?? '');
    res.writeHead(
      answer.status,
      answer.body !== undefined ? { 'content-type': 'application/json' } : {},
    );
    res.end(answer.body !== undefined ? JSON.stringify(answer.body) : undefined);
  }

  private token(req: IncomingMessage, text: string, res: ServerResponse): void {
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const [id, secret] = Buffer.from(basic ?? '', 'base64')
      .toString('utf8')
      .split(':')
      .map(decodeURIComponent);
    const form = new URLSearchParams(text);
    if (
      id !== this.options.clientId ||
      secret !== this.options.clientSecret ||
      form.get('grant_type') !== 'client_credentials'
    ) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'invalid_client' }));
      return;
    }
    const token = randomBytes(24).toString('base64url');
    this.tokens.add(token);
    this.tokensIssued += 1;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        access_token: token,
        token_type: 'Bearer',
        expires_in: this.options.tokenLifetimeSeconds ?? 3600,
        scope: form.get('scope') ?? '',
      }),
    );
  }

  private route(
    method: string,
    url: URL,
    body: Record<string, unknown> | null,
  ): { status: number; body?: unknown; problem?: string; detail?: string } {
    const path = url.pathname.replace(/^\/api\/v2/, '');
    let m: RegExpExecArray | null;
    if ((m = /^\/(cob|cobv)\/([a-zA-Z0-9]{26,35})$/.exec(path)) !== null) {
      const kind = m[1] as 'cob' | 'cobv';
      const txid = m[2] as string;
      const invalidType = kind === 'cob' ? 'CobOperacaoInvalida' : 'CobVOperacaoInvalida';
      const existing = this.cobs.get(txid);
      if (method === 'PUT') {
        if (existing !== undefined)
          return {
            status: 400,
            problem: invalidType,
            detail: 'O txid informado já foi utilizado.',
          };
        const created = this.createCob(kind, txid, body);
        return typeof created === 'string'
          ? { status: 400, problem: invalidType, detail: created }
          : { status: 201, body: wireCob(created, []) };
      }
      if (existing === undefined || existing.kind !== kind)
        return { status: 404, problem: 'NaoEncontrado', detail: 'Cobrança não encontrada.' };
      if (method === 'GET') return { status: 200, body: wireCob(existing, this.pixOf(txid)) };
      if (method === 'PATCH') {
        if (body?.['status'] !== 'REMOVIDA_PELO_USUARIO_RECEBEDOR' || existing.status !== 'ATIVA')
          return { status: 400, problem: invalidType, detail: 'A cobrança não pode ser removida.' };
        existing.status = 'REMOVIDA_PELO_USUARIO_RECEBEDOR';
        existing.revisao += 1;
        return { status: 200, body: wireCob(existing, []) };
      }
    }
    if ((m = /^\/pix\/([a-zA-Z0-9]{32})\/devolucao\/([a-zA-Z0-9]{1,35})$/.exec(path)) !== null) {
      const received = this.pix.get(m[1] as string);
      if (received === undefined)
        return { status: 404, problem: 'NaoEncontrado', detail: 'Pix não encontrado.' };
      const id = m[2] as string;
      const existing = received.devolucoes.find((d) => d.id === id);
      if (method === 'GET')
        return existing !== undefined
          ? { status: 200, body: existing }
          : { status: 404, problem: 'NaoEncontrado', detail: 'Devolução não encontrada.' };
      if (method === 'PUT') {
        if (existing !== undefined)
          return {
            status: 400,
            problem: 'PixDevolucaoInvalida',
            detail: 'O id de devolução já foi utilizado.',
          };
        const cents = typeof body?.['valor'] === 'string' ? reaisToCents(body['valor']) : null;
        if (cents === null || cents < 1)
          return {
            status: 400,
            problem: 'PixDevolucaoInvalida',
            detail: 'O campo devolucao.valor não respeita o schema.',
          };
        const returned = received.devolucoes
          .filter((d) => d.status !== 'NAO_REALIZADO')
          .reduce((sum, d) => sum + (reaisToCents(d.valor) ?? 0), 0);
        if (returned + cents > (reaisToCents(received.valor) ?? 0))
          return {
            status: 400,
            problem: 'PixDevolucaoInvalida',
            detail: 'A devolução excederia o valor do Pix.',
          };
        const devolucao: Devolucao = {
          id,
          rtrId: `D${ISPB}${randomBytes(12).toString('hex').slice(0, 23)}`,
          valor: centsToReais(cents),
          horario: { solicitacao: new Date().toISOString() },
          status: 'EM_PROCESSAMENTO',
        };
        received.devolucoes.push(devolucao);
        return { status: 201, body: devolucao };
      }
    }
    if ((m = /^\/webhook\/(.+)$/.exec(path)) !== null && method === 'PUT') {
      if (decodeURIComponent(m[1] as string) !== this.options.chave)
        return {
          status: 400,
          problem: 'WebhookOperacaoInvalida',
          detail: 'A chave não pertence a este usuário recebedor.',
        };
      const webhookUrl = body?.['webhookUrl'];
      if (typeof webhookUrl !== 'string' || !/^https:\/\//.test(webhookUrl))
        return {
          status: 400,
          problem: 'WebhookOperacaoInvalida',
          detail: 'Campo webhook.webhookUrl não respeita o schema.',
        };
      this.webhookUrl = webhookUrl;
      return { status: 200 };
    }
    if (path === '/pix' && method === 'GET') return this.listPix(url);
    return { status: 404, problem: 'NaoEncontrado', detail: `${method} ${path}` };
  }

  private createCob(
    kind: 'cob' | 'cobv',
    txid: string,
    body: Record<string, unknown> | null,
  ): Cob | string {
    const valor = body?.['valor'] as { original?: unknown } | undefined;
    const calendario = body?.['calendario'] as Record<string, unknown> | undefined;
    if (typeof valor?.original !== 'string' || reaisToCents(valor.original) === null)
      return 'O campo cob.valor.original não respeita o schema.';
    if (body?.['chave'] !== this.options.chave)
      return 'A chave não pertence a este usuário recebedor.';
    if (calendario === undefined) return 'O campo cob.calendario não respeita o schema.';
    if (
      kind === 'cob' &&
      !(Number.isInteger(calendario['expiracao']) && (calendario['expiracao'] as number) > 0)
    )
      return 'O campo cob.calendario.expiracao não respeita o schema.';
    if (
      kind === 'cobv' &&
      (typeof calendario['dataDeVencimento'] !== 'string' || body?.['devedor'] === undefined)
    )
      return 'O campo cobv.calendario.dataDeVencimento ou cobv.devedor não respeita o schema.';
    const locId = this.nextLocId++;
    const location = `127.0.0.1/qr/v2/${kind === 'cobv' ? 'cobv/' : ''}${randomBytes(16).toString('hex')}`;
    const cob: Cob = {
      kind,
      txid,
      revisao: 0,
      status: 'ATIVA',
      calendario:
        kind === 'cob'
          ? { expiracao: calendario['expiracao'] }
          : {
              dataDeVencimento: calendario['dataDeVencimento'],
              validadeAposVencimento: calendario['validadeAposVencimento'] ?? 30,
            },
      ...(body?.['devedor'] !== undefined ? { devedor: body['devedor'] } : {}),
      valor: { original: valor.original },
      chave: this.options.chave,
      location,
      pixCopiaECola: buildBrCode({
        merchantName: 'Fake PSP Recebedor',
        merchantCity: 'Sao Paulo',
        amountCents: reaisToCents(valor.original) ?? 0,
        txid: '***',
        locationUrl: location,
      }),
      locId,
      criacao: new Date().toISOString(),
    };
    this.cobs.set(txid, cob);
    return cob;
  }

  private pixOf(txid: string): ReceivedPix[] {
    return [...this.pix.values()].filter((p) => p.txid === txid);
  }

  private listPix(url: URL): { status: number; body?: unknown; problem?: string; detail?: string } {
    const inicio = Date.parse(url.searchParams.get('inicio') ?? '');
    const fim = Date.parse(url.searchParams.get('fim') ?? '');
    if (Number.isNaN(inicio) || Number.isNaN(fim) || fim < inicio)
      return {
        status: 400,
        problem: 'PixConsultaInvalida',
        detail: 'inicio e fim são obrigatórios; fim não pode ser anterior a inicio.',
      };
    const page = Number(url.searchParams.get('paginacao.paginaAtual') ?? '0');
    const perPage = Number(url.searchParams.get('paginacao.itensPorPagina') ?? '100');
    const all = [...this.pix.values()].filter(
      (p) => Date.parse(p.horario) >= inicio && Date.parse(p.horario) <= fim,
    );
    const pages = Math.max(1, Math.ceil(all.length / perPage));
    return {
      status: 200,
      body: {
        parametros: {
          inicio: new Date(inicio).toISOString(),
          fim: new Date(fim).toISOString(),
          paginacao: {
            paginaAtual: page,
            itensPorPagina: perPage,
            quantidadeDePaginas: pages,
            quantidadeTotalDeItens: all.length,
          },
        },
        pix: all.slice(page * perPage, (page + 1) * perPage).map(wirePix),
      },
    };
  }
}

function wirePix(p: ReceivedPix): Record<string, unknown> {
  return {
    endToEndId: p.endToEndId,
    txid: p.txid,
    valor: p.valor,
    chave: p.chave,
    horario: p.horario,
    ...(p.devolucoes.length > 0 ? { devolucoes: p.devolucoes } : {}),
  };
}

function wireCob(cob: Cob, pix: ReceivedPix[]): Record<string, unknown> {
  return {
    calendario: { criacao: cob.criacao, ...cob.calendario },
    txid: cob.txid,
    revisao: cob.revisao,
    loc: { id: cob.locId, location: cob.location, tipoCob: cob.kind, criacao: cob.criacao },
    location: cob.location,
    status: cob.status,
    ...(cob.devedor !== undefined ? { devedor: cob.devedor } : {}),
    valor: cob.valor,
    chave: cob.chave,
    pixCopiaECola: cob.pixCopiaECola,
    ...(pix.length > 0 ? { pix: pix.map(wirePix) } : {}),
  };
}

function problem(res: ServerResponse, status: number, type: string, detail: string): void {
  res.writeHead(status, { 'content-type': 'application/problem+json' });
  res.end(JSON.stringify({ type: `${PROBLEM}${type}`, title: type, status, detail }));
}
