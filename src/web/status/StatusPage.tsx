export function StatusPage() {
  return <p>status</p>;
}
