import type { Metadata } from 'next';
import { SetupView } from '@/components/setup/setup-view';

export const metadata: Metadata = { title: 'Set-up' };

export default function SetupPage() {
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Set up your fleet</h1>
          <p>
            Bring a real fleet in: name the organization, check that the provider answers, and import the policies the scheduler follows.
          </p>
        </div>
      </div>
      <SetupView />
    </>
  );
}
