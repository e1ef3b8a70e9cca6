/**
 * The events fleetplan sends about an upgrade: one per lifecycle transition
 * (server/domain/lifecycle), plus the pre-health notice and the engine's own skips. One list for
 * the tick that emits them, the webhook subscriptions the API accepts, the Scheduler page's
 * choices and the webhook_deliveries.event column; browser-safe, so the page can import it.
 */
export const UPGRADE_EVENTS = [
  'scheduled',
  'started',
  'upgrading',
  'completed',
  'failed',
  'timed-out',
  'cancelled',
  'skipped',
  'precheck-failed',
  'skipped-unhealthy',
  'blocked',
] as const;

export type UpgradeEvent = (typeof UPGRADE_EVENTS)[number];
