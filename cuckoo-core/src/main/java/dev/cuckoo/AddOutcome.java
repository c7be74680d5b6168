package dev.cuckoo;

/**
 * What {@link MembershipFilter#addIfAbsentWithOutcome} did: stored the item, stored nothing because
 * the item might already be present, or stored nothing because there was no room.
 *
 * <pre>{@code
 * switch (filter.addIfAbsentWithOutcome(line)) {
 *   case ADDED -> stored++;
 *   case ALREADY_PRESENT -> skipped++;   // a duplicate, or rarely a false positive
 *   case FULL -> throw new IllegalStateException("filter full after " + stored + " items");
 * }
 * }</pre>
 *
 * <p>{@link #ALREADY_PRESENT} is the filter's "might contain" answer, with its false positives: an
 * item never added is reported present, and not stored, with the probability of a false positive at
 * the current load ({@link MembershipFilter#expectedFalsePositiveRate()}). It never means
 * "definitely present".
 */
public enum AddOutcome {
  /** The item was stored: one more fingerprint, {@link MembershipFilter#size()} grew by one. */
  ADDED,
  /**
   * Nothing was stored because the filter might already contain the item ({@link
   * MembershipFilter#mightContain} was true): the item was added before, or it is a false positive.
   * The filter is unchanged.
   */
  ALREADY_PRESENT,
  /**
   * Nothing was stored because there was no room: the item's buckets are full and no relocation
   * made room, or a growing filter could not add a link. The filter is unchanged.
   */
  FULL
}
