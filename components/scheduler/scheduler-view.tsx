'use client';
// The Scheduler page: status and controls, recent ticks, maintenance exclusions, blocking hooks, webhooks.
import { ExclusionsPanel } from './exclusions-panel';
import { HooksPanel } from './hooks-panel';
import { SchedulerStatus } from './scheduler-status';
import { TicksTable } from './ticks-table';
import { WebhooksPanel } from './webhooks-panel';
import './scheduler.css';

export function SchedulerView() {
  return (
    <>
      <SchedulerStatus />
      <TicksTable />
      <ExclusionsPanel />
      <HooksPanel />
      <WebhooksPanel />
    </>
  );
}
