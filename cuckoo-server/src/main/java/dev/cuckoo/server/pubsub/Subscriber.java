package dev.cuckoo.server.pubsub;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The subscriptions of one connection: its channels, patterns and shard channels (each in the order
 * subscribed, as UNSUBSCRIBE without arguments lists them), and the outbox messages for it go to.
 *
 * <p>The sets are read and changed only on the connection's own thread; publishers on any thread
 * reach the connection only through {@link Outbox#deliver}.
 */
public final class Subscriber {
  /** Where a connection's messages go; implemented by the network layer. */
  @FunctionalInterface
  public interface Outbox {
    /**
     * Hands a frame (a published message, a MONITOR line) to the connection; may be called from any
     * thread, and must not block. The connection writes it after the replies already queued for it,
     * so a subscriber sees its SUBSCRIBE confirmation before any message of that channel.
     */
    void deliver(Frame frame);
  }

  private final Outbox outbox;
  private final Set<ChannelName> channels = new LinkedHashSet<>();
  private final Set<ChannelName> patterns = new LinkedHashSet<>();
  private final Set<ChannelName> shardChannels = new LinkedHashSet<>();

  /** Creates the (empty) subscriptions of a connection whose messages go to {@code outbox}. */
  public Subscriber(Outbox outbox) {
    this.outbox = outbox;
  }

  Outbox outbox() {
    return outbox;
  }

  /** Hands a frame to the connection (from any thread): see {@link Outbox#deliver}. */
  public void deliver(Frame frame) {
    outbox.deliver(frame);
  }

  Set<ChannelName> names(Kind kind) {
    return switch (kind) {
      case CHANNEL -> channels;
      case PATTERN -> patterns;
      case SHARD -> shardChannels;
    };
  }

  /** Returns the names subscribed of a kind, in subscription order (a copy). */
  public List<byte[]> subscribed(Kind kind) {
    List<byte[]> names = new ArrayList<>();
    for (ChannelName name : names(kind)) {
      names.add(name.bytes());
    }
    return names;
  }

  /**
   * Returns the names subscribed of a kind (CLIENT LIST {@code sub}, {@code psub}, {@code ssub}).
   */
  public int count(Kind kind) {
    return names(kind).size();
  }

  /**
   * Returns the count a (un)subscribe confirmation carries, as Redis's {@code
   * clientSubscriptionsCount}: channels and patterns for those kinds, shard channels for shard
   * ones.
   */
  public int confirmationCount(Kind kind) {
    return kind == Kind.SHARD ? shardChannels.size() : channels.size() + patterns.size();
  }

  /** Returns true while the connection has any subscription (Redis's CLIENT_PUBSUB flag). */
  public boolean subscribed() {
    return !channels.isEmpty() || !patterns.isEmpty() || !shardChannels.isEmpty();
  }
}
