import { OrgLink } from '@/components/shell/org-link';

export default function NotFound() {
  return (
    <div className="panel empty">
      <h1>Not found</h1>
      <p>This page or cluster does not exist.</p>
      <OrgLink href="/fleet" className="btn">
        Back to the fleet
      </OrgLink>
    </div>
  );
}
