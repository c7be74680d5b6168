package dev.cuckoo;

/**
 * What an add did: stored the item, stored nothing because the item might already be present,
 * stored nothing because there was no room, or stored nothing because a growing filter could not
 * add a link. Every filter answers with this one type: {@link
 * MembershipFilter#addIfAbsentWithOutcome} and {@link RedisCuckooFilter#tryAdd} alike.
 *
 * <pre>{@code
 * switch (filter.addIfAbsentWithOutcome(line)) {
 *   case ADDED -> stored++;
 *   case ALREADY_PRESENT -> skipped++;   // a duplicate, or rarely a false positive
 *   case FULL, NO_MEMORY -> throw new IllegalStateException("no room after " + stored + " items");
 * }
 * }</pre>
 *
 * <p>{@link #ALREADY_PRESENT} is the filter's "might contain" answer, with its false positives: an
 * item never added is reported present, and not stored, with the probability of a false positive at
 * the current load ({@link MembershipFilter#expectedFalsePositiveRate()}). It never means
 * "definitely present". Only an add that returns {@link #ADDED} changes the filter.
 *
 * <p>The constants map onto RedisBloom's replies: {@code CF.ADD} and {@code CF.ADDNX} answer 1 for
 * {@link #ADDED}, {@code CF.ADDNX} 0 for {@link #ALREADY_PRESENT}, "Filter is full" for {@link
 * #FULL} and "Insufficient memory" for {@link #NO_MEMORY}.
 */
public enum AddOutcome {
  /** The item was stored: one more fingerprint, {@link MembershipFilter#size()} grew by one. */
  ADDED,
  /**
   * Nothing was stored because the filter might already contain the item ({@link
   * MembershipFilter#mightContain} was true): the item was added before, or it is a false positive.
   * Only the if-absent adds answer it. The filter is unchanged.
   */
  ALREADY_PRESENT,
  /**
   * Nothing was stored because there was no room and the filter may not grow: the item's buckets
   * are full and no relocation made room (a single filter, or a {@link RedisCuckooFilter} with
   * expansion 0). The filter is unchanged.
   */
  FULL,
  /**
   * Nothing was stored because a growing filter ({@link ScalableCuckooFilter}, {@link
   * RedisCuckooFilter}) needed a new link and cannot make it: the link limit is reached, its table
   * is beyond the table limits or larger than the maximum heap, the heap has no room for it even
   * after a full garbage collection, or ({@link ScalableCuckooFilter}) its fingerprints would need
   * more than 32 bits. The filter is unchanged.
   */
  NO_MEMORY
}
