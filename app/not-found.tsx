import Link from 'next/link';

export default function NotFound() {
  return (
    <div className="panel empty">
      <h1>Not found</h1>
      <p>This page or cluster does not exist.</p>
      <Link href="/fleet" className="btn">
        Back to the fleet
      </Link>
    </div>
  );
}
