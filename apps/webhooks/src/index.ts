export { createWebhooksService, webhooksService } from './service';
export type { WebhooksServiceOptions } from './service';
export { EVENT_KIND_RULES, webhookKindOf, webhookTopics } from './consumers/event-kinds';
