/**
 * What a session page says for a session the key cannot see. Another tenant's session and one
 * that does not exist get the very same words: the console must not tell them apart (the API
 * answers both with the same 404).
 */
export function NotFound({ sessionId }: { sessionId: string }) {
  return (
    <section className="screen not-found">
      <p className="state error" role="alert">
        Session “{sessionId}” not found.
      </p>
      <p>
        <a href="/console/sessions">All sessions</a>
      </p>
    </section>
  );
}
