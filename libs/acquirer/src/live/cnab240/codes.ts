// The FEBRABAN CNAB 240 cobrança code tables that a return file is read with: the movement codes of
// segments T and U (note C044) and the reasons that accompany them in T 214–223 (note C047), whose meaning
// depends on the movement. Banks add codes of their own; an unknown code is kept as it came, described as
// unknown, never dropped.

/** What a return movement means for us. */
export type MovementOutcome = 'registered' | 'rejected' | 'paid' | 'written_off' | 'other';

interface Movement {
  outcome: MovementOutcome;
  description: string;
}

/** Return movement codes (C044). */
export const RETURN_MOVEMENTS: Readonly<Record<string, Movement>> = {
  '02': { outcome: 'registered', description: 'Entrada confirmada' },
  '03': { outcome: 'rejected', description: 'Entrada rejeitada' },
  '04': { outcome: 'other', description: 'Transferência de carteira/entrada' },
  '05': { outcome: 'other', description: 'Transferência de carteira/baixa' },
  '06': { outcome: 'paid', description: 'Liquidação' },
  '07': { outcome: 'other', description: 'Confirmação do recebimento da instrução de desconto' },
  '08': { outcome: 'other', description: 'Confirmação do recebimento do cancelamento do desconto' },
  '09': { outcome: 'written_off', description: 'Baixa' },
  '11': { outcome: 'other', description: 'Títulos em carteira (em ser)' },
  '12': { outcome: 'other', description: 'Confirmação recebimento instrução de abatimento' },
  '13': {
    outcome: 'other',
    description: 'Confirmação recebimento instrução de cancelamento abatimento',
  },
  '14': {
    outcome: 'other',
    description: 'Confirmação recebimento instrução alteração de vencimento',
  },
  '15': { outcome: 'other', description: 'Franco de pagamento' },
  // A payment the bank accepted after the slip had been written off (or was never registered): money came in.
  '17': {
    outcome: 'paid',
    description: 'Liquidação após baixa ou liquidação título não registrado',
  },
  '19': { outcome: 'other', description: 'Confirmação recebimento instrução de protesto' },
  '20': {
    outcome: 'other',
    description: 'Confirmação recebimento instrução de sustação/cancelamento de protesto',
  },
  '23': { outcome: 'other', description: 'Remessa a cartório (aponte em cartório)' },
  '24': { outcome: 'other', description: 'Retirada de cartório e manutenção em carteira' },
  '25': {
    outcome: 'written_off',
    description: 'Protestado e baixado (baixa por ter sido protestado)',
  },
  '26': { outcome: 'other', description: 'Instrução rejeitada' },
  '27': { outcome: 'other', description: 'Confirmação do pedido de alteração de outros dados' },
  '28': { outcome: 'other', description: 'Débito de tarifas/custas' },
  '29': { outcome: 'other', description: 'Ocorrências do pagador' },
  '30': { outcome: 'other', description: 'Alteração de dados rejeitada' },
};

/** Reasons for 02, 03, 26 and 30 (C047 A): why an entry or instruction was refused, or notes on a confirmed one. */
export const REJECTION_REASONS: Readonly<Record<string, string>> = {
  '01': 'Código do banco inválido',
  '02': 'Código do registro detalhe inválido',
  '03': 'Código do segmento inválido',
  '04': 'Código de movimento não permitido para carteira',
  '05': 'Código de movimento inválido',
  '06': 'Tipo/número de inscrição do beneficiário inválidos',
  '07': 'Agência/conta/DV inválido',
  '08': 'Nosso número inválido',
  '09': 'Nosso número duplicado',
  '10': 'Carteira inválida',
  '11': 'Forma de cadastramento do título inválido',
  '12': 'Tipo de documento inválido',
  '13': 'Identificação da emissão do boleto inválida',
  '14': 'Identificação da distribuição do boleto inválida',
  '15': 'Características da cobrança incompatíveis',
  '16': 'Data de vencimento inválida',
  '17': 'Data de vencimento anterior à data de emissão',
  '18': 'Vencimento fora do prazo de operação',
  '19': 'Título a cargo de bancos correspondentes com vencimento inferior a XX dias',
  '20': 'Valor do título inválido',
  '21': 'Espécie do título inválida',
  '22': 'Espécie do título não permitida para a carteira',
  '23': 'Aceite inválido',
  '24': 'Data da emissão inválida',
  '25': 'Data da emissão posterior à data de entrada',
  '26': 'Código de juros de mora inválido',
  '27': 'Valor/taxa de juros de mora inválido',
  '28': 'Código do desconto inválido',
  '29': 'Valor do desconto maior ou igual ao valor do título',
  '30': 'Desconto a conceder não confere',
  '31': 'Concessão de desconto - já existe desconto anterior',
  '32': 'Valor do IOF inválido',
  '33': 'Valor do abatimento inválido',
  '34': 'Valor do abatimento maior ou igual ao valor do título',
  '35': 'Valor a conceder não confere',
  '36': 'Concessão de abatimento - já existe abatimento anterior',
  '37': 'Código para protesto inválido',
  '38': 'Prazo para protesto inválido',
  '39': 'Pedido de protesto não permitido para o título',
  '40': 'Título com ordem de protesto emitida',
  '41': 'Pedido de cancelamento/sustação para títulos sem instrução de protesto',
  '42': 'Código para baixa/devolução inválido',
  '43': 'Prazo para baixa/devolução inválido',
  '44': 'Código da moeda inválido',
  '45': 'Nome do pagador não informado',
  '46': 'Tipo/número de inscrição do pagador inválidos',
  '47': 'Endereço do pagador não informado',
  '48': 'CEP inválido',
  '49': 'CEP sem praça de cobrança (não localizado)',
  '50': 'CEP referente a um banco correspondente',
  '51': 'CEP incompatível com a unidade da federação',
  '52': 'Unidade da federação inválida',
  '53': 'Tipo/número de inscrição do sacador/avalista inválidos',
  '54': 'Sacador/avalista não informado',
  '55': 'Nosso número no banco correspondente não informado',
  '56': 'Código do banco correspondente não informado',
  '57': 'Código da multa inválido',
  '58': 'Data da multa inválida',
  '59': 'Valor/percentual da multa inválido',
  '60': 'Movimento para título não cadastrado',
  '61': 'Alteração da agência cobradora/DV inválida',
  '62': 'Tipo de impressão inválido',
  '63': 'Entrada para título já cadastrado',
  '64': 'Número da linha inválido',
  '65': 'Código do banco para débito inválido',
  '66': 'Agência/conta/DV para débito inválido',
  '67': 'Dados para débito incompatível com a identificação da emissão do boleto',
  '79': 'Data juros de mora inválida',
  '80': 'Data do desconto inválida',
  '86': 'Seu número inválido',
};

/** Reasons for 06 and 17 (C047 C): the channel the slip was paid through. */
export const LIQUIDATION_REASONS: Readonly<Record<string, string>> = {
  '01': 'Por saldo',
  '02': 'Por conta',
  '03': 'Liquidação no guichê de caixa em dinheiro',
  '04': 'Compensação eletrônica',
  '05': 'Compensação convencional',
  '06': 'Por meio eletrônico',
  '07': 'Após feriado local',
  '08': 'Em cartório',
  '30': 'Liquidação no guichê de caixa em cheque',
  '31': 'Liquidação em banco correspondente',
  '32': 'Liquidação terminal de auto-atendimento',
  '33': 'Liquidação na internet (home banking)',
  '34': 'Liquidado office banking',
  '35': 'Liquidado correspondente em dinheiro',
  '36': 'Liquidado correspondente em cheque',
  '37': 'Liquidado por meio de central de atendimento (telefone)',
};

/** Reasons for 09 (C047 C): who or what wrote the slip off. */
export const WRITE_OFF_REASONS: Readonly<Record<string, string>> = {
  '09': 'Comandada banco',
  '10': 'Comandada cliente arquivo',
  '11': 'Comandada cliente on-line',
  '12': 'Decurso prazo - cliente',
  '13': 'Decurso prazo - banco',
  '14': 'Protestado',
  '15': 'Título excluído',
};

export interface ReasonCode {
  code: string;
  description: string;
}

/** The reason codes of T 214–223 (five pairs, blanks and zeros skipped), described by the table of the movement. */
export function reasonsOf(movementCode: string, raw: string): ReasonCode[] {
  const table = reasonTable(movementCode);
  const reasons: ReasonCode[] = [];
  for (let i = 0; i + 2 <= raw.length; i += 2) {
    const code = raw.slice(i, i + 2);
    if (code.trim() === '' || code === '00') continue;
    reasons.push({
      code,
      description: table[code] ?? 'código não documentado no padrão FEBRABAN (ver tabela do banco)',
    });
  }
  return reasons;
}

function reasonTable(movementCode: string): Readonly<Record<string, string>> {
  switch (RETURN_MOVEMENTS[movementCode]?.outcome) {
    case 'paid':
      return LIQUIDATION_REASONS;
    case 'written_off':
      return WRITE_OFF_REASONS;
    default:
      return REJECTION_REASONS;
  }
}
