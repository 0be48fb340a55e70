// The auction face's background jobs, by name (src/auctions/jobs.ts defines them).
export const JOBS = {
  /** Wake-up: fetch the images whose retrieval is due. Enqueued in the transaction that created them. */
  fetchImages: 'auctions.fetch-images',
  /** Wake-up: POST the support notifications whose delivery is due. */
  deliverNotifications: 'auctions.deliver-notifications',
  /** Close the auctions whose endsAt passed (every minute, and at the earliest endsAt of a create). */
  closeEnded: 'auctions.close-ended',
  /** Every minute: the safety net for lost wake-ups, and the purge of old idempotency keys. */
  maintenance: 'auctions.maintenance',
  /** Jobs of the face that exhausted their retries land here and become support notifications. */
  deadLetter: 'auctions.dead-letter',
} as const;
