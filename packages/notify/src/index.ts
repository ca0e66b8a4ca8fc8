export { commandWords } from "./command-words.js";
export type {
  CommandDeliveryOptions,
  Delivery,
  DeliveryResult,
  WebhookDeliveryOptions,
} from "./deliver.js";
export { postWebhook, runCommand, webhookTarget } from "./deliver.js";
export { NotifyOptionError } from "./errors.js";
export type {
  Notification,
  NotificationSource,
  NotificationSourceOptions,
} from "./notification.js";
export {
  ciRunUrl,
  createNotificationSource,
  NOTIFICATION_VERSION,
  notificationText,
} from "./notification.js";
export type { Notifier, NotifierOptions } from "./notifier.js";
export { createNotifier } from "./notifier.js";
export type { NotifyEvent } from "./notify-events.js";
export { DEFAULT_NOTIFY_TIMEOUT_MS, NOTIFY_EVENTS, parseNotifyEvents } from "./notify-events.js";
