export { createWebhooksService, webhooksService } from './service';
export type { WebhooksServiceOptions } from './service';
export { EVENT_KIND_RULES, WEBHOOK_KINDS, webhookKindOf, webhookTopics } from './domain/event-kinds';
export type { WebhookKind } from './domain/event-kinds';
