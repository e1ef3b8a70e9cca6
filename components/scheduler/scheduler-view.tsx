'use client';
// The Scheduler page: status and controls, recent ticks, maintenance exclusions, webhooks.
import { ExclusionsPanel } from './exclusions-panel';
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
      <WebhooksPanel />
    </>
  );
}
