package dev.cuckoo.server.acl;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiPredicate;

/**
 * The channels a change of a user's rules took away (ACL SETUSER, ACL LOAD), as Redis's
 * getUpcomingChannelList: the channel patterns the user's new selectors allow, when they are not a
 * superset of the old ones. A client of the user subscribed to a channel or pattern these no longer
 * allow is closed (Redis's ACLKillPubsubClientsIfNeeded).
 */
public final class ChannelRevocation {
  private final User user;
  private final List<byte[]> upcoming;
  private final BiPredicate<byte[], byte[]> glob;

  private ChannelRevocation(User user, List<byte[]> upcoming, BiPredicate<byte[], byte[]> glob) {
    this.user = user;
    this.upcoming = upcoming;
    this.glob = glob;
  }

  /**
   * Returns what changing a user's rules from {@code original} to {@code updated} takes away, or
   * null if every channel pattern the original rules had is still there (or the new rules allow
   * every channel): then no subscriber needs to be looked at.
   */
  static ChannelRevocation between(
      User user, Rules original, Rules updated, BiPredicate<byte[], byte[]> glob) {
    List<String> patterns = new ArrayList<>();
    for (Selector selector : updated.selectors()) {
      if (selector.allChannels()) {
        return null;
      }
      patterns.addAll(selector.channelPatterns());
    }
    boolean superset = true;
    for (Selector selector : original.selectors()) {
      // the old rules allowed every channel and the new ones do not (checked above)
      superset &= !selector.allChannels() && patterns.containsAll(selector.channelPatterns());
    }
    if (superset) {
      return null;
    }
    List<byte[]> upcoming = new ArrayList<>(patterns.size());
    for (String pattern : patterns) {
      upcoming.add(Latin1.bytes(pattern));
    }
    return new ChannelRevocation(user, upcoming, glob);
  }

  /** Returns the user whose rules changed. */
  public User user() {
    return user;
  }

  /**
   * Returns true if a subscription is still allowed: a channel (or shard channel) name some pattern
   * matches, a PSUBSCRIBE pattern equal to one of them (Redis's ACLShouldKillPubsubClient).
   */
  public boolean allows(byte[] name, boolean isPattern) {
    return Selector.matchesAny(upcoming, name, isPattern, glob);
  }
}
