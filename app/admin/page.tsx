import type { Metadata } from 'next';
import { AdminView } from '@/components/auth/admin-view';

export const metadata: Metadata = { title: 'Admin' };

export default function AdminPage() {
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Users and API tokens</h1>
          <p>Who may sign in, with which role, and the tokens the CLI and automation use. Every change is recorded on the Activity page.</p>
        </div>
      </div>
      <AdminView />
    </>
  );
}
