'use client';
// The fleet-wide freeze, impossible to miss: a solid badge in the top bar of every page, linking
// to the organization policy where the freeze is lifted.
import { OrgLink } from '@/components/shell/org-link';
import './simulator.css';

export function FreezeBadge({ reason }: { reason: string | null }) {
  return (
    <OrgLink
      href="/policies"
      className="freeze-badge"
      role="status"
      title={`${reason ? `Why: ${reason}. ` : ''}No new upgrades start while the fleet is frozen. Open the organization policy to lift the freeze.`}
      data-testid="freeze-badge"
    >
      <svg width="14" height="14" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden="true">
        <path d="M12 2v20M4 6l16 12M20 6L4 18" />
      </svg>
      Fleet frozen — no new upgrades
      {reason && <span className="why">· {reason}</span>}
    </OrgLink>
  );
}
