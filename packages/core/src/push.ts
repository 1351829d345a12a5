/**
 * Node-only parts of push notifications (`@taskwire/core/push`): the webhook
 * delivery with its SSRF guard (it needs `node:dns`, `node:http`) and the
 * durable file push config store that lives beside a FileTaskStore. The
 * store interface, the memory store and the service wiring are in the main
 * entry, which stays browser-safe.
 */
export { webhookDelivery, WebhookDelivery } from './push/webhook-delivery.js';
export type { WebhookDeliveryOptions, WebhookDeliveryStats } from './push/webhook-delivery.js';
export { createWebhookGuard, systemLookup, UnsafeWebhookError } from './push/webhook-guard.js';
export type { HostLookup, ResolvedAddress, ResolvedWebhook, UnsafeWebhookReason, WebhookGuard, WebhookGuardOptions } from './push/webhook-guard.js';
export { NOTIFICATION_CONTENT_TYPE, notificationHeaders, SEQUENCE_HEADER } from './push/webhook-attempt.js';
export { DEFAULT_RETRY_POLICY, retryDelay, systemClock } from './push/backoff.js';
export type { Clock, RetryPolicy } from './push/backoff.js';
export { classifyAddress, parseIp } from './push/ip-address.js';
export type { AddressKind } from './push/ip-address.js';
export { FilePushConfigStore } from './push/file-push-store.js';
export type { FilePushConfigStoreOptions } from './push/file-push-store.js';
export { PUSH_LOG } from './push/file-push-log.js';
export { openPushSecrets, PushSecretBox, PushSecretError, pushSecretBox, refuseUnsealedPushSecrets } from './push/push-secrets.js';
export type { PushEncryptionOptions } from './push/push-secrets.js';
