// The body of contract §7, serialized once when the event is consumed and stored: every attempt sends,
// and signs, exactly these bytes.

export interface EventBodyInput {
  eventId: string;
  kind: string;
  occurredAtMs: number;
  livemode: boolean;
  /** The API resource as integrators see it (the event's resource_json), already parsed. */
  resource: unknown;
  requestId: string | null;
}

export function eventBody(input: EventBodyInput): string {
  return JSON.stringify({
    id: input.eventId,
    object: 'event',
    type: input.kind,
    created_at: new Date(input.occurredAtMs).toISOString(),
    livemode: input.livemode,
    data: { object: input.resource },
    request_id: input.requestId,
  });
}
